import multipart, { type MultipartFile } from '@fastify/multipart';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  PHOTO_PAGE_MAX,
  deletePhotoResponse,
  photo,
  photoFileParams,
  photoFileQuery,
  photoIdParams,
  photoList,
  photoPage,
  photoSummary,
  photosQuery,
  uploadResponse,
  type UploadResult,
} from '@contract/photos';
import type { AppContext } from '../../context';
import { answeredLater } from '../../http/answered-later';
import { badRequest, SEND_PHOTOS_MESSAGE } from '../../http/errors';
import { userOf } from '../../http/session';
import { RenderCache } from '../../lib/render-cache';
import { BlobStoreUnavailable } from '../../storage/blob-store';
import { createPhotosRepository } from './photos.repository';
import { createPhotosService, type Ingested, type PhotosService } from './photos.service';
import { createFirstPages, type FirstPages } from './first-pages';
import { createLibraryVersions } from './library-versions';
import { photosManageRoutes } from './photos-manage.routes';

/**
 * Thumbnails and previews (a few KB to a few hundred KB each) kept in memory, least recently used
 * out first: a blob key is its content hash, so an entry is never stale. The gallery and the PWA
 * ask for thumbnails far more than for anything else; the file system calls (stat, open, read,
 * close) and stream writes they cost were the largest item after the database in the load profile.
 */
export const DERIVATIVE_CACHE_BYTES = 32 * 1024 * 1024;

/**
 * Which cached first page a query asks for, when it is exactly what the route's schema would
 * accept and map the same way (no query: the plain list; `limit` alone, a plain number in
 * range); null for anything else, which takes the full route.
 */
function firstPageKind(query: Record<string, unknown>): string | null {
  let keys = 0;
  for (const _ in query) keys += 1;
  if (keys === 0) return kindOf(undefined);
  const limit = query.limit;
  if (keys !== 1 || typeof limit !== 'string' || !/^[1-9][0-9]{0,2}$/.test(limit)) return null;
  const n = Number(limit);
  return n <= PHOTO_PAGE_MAX ? kindOf(n) : null;
}

/** The cached first page a checked `limit` names: the plain list without one. */
const kindOf = (limit: number | undefined) => (limit === undefined ? 'list' : `page:${limit}`);

/** JSON text written already: sent as it is, labelled as Fastify's serialiser would label it. */
const sendJson = (reply: FastifyReply, json: string) => reply.type('application/json; charset=utf-8').send(json);

/** At most this many files in one upload request; the client sends larger selections in several. */
export const MAX_FILES_PER_REQUEST = 20;
const MAX_FIELDS_PER_REQUEST = 10;
export const TOO_MANY_PARTS_MESSAGE =
  `At most ${MAX_FILES_PER_REQUEST} photos can be sent in one upload: the rest of this one was not read. ` +
  'Send the other photos in another upload.';
/** The result standing for what an upload sent past its parser limits. */
const tooManyParts: UploadResult = {
  ok: false,
  fileName: `Photos after the ${MAX_FILES_PER_REQUEST}th`,
  status: 413,
  message: TOO_MANY_PARTS_MESSAGE,
};
/** The multipart parser's limits (files, fields, parts), raised while a request's parts are read. */
const UPLOAD_LIMIT_CODES: ReadonlySet<unknown> = new Set(['FST_FILES_LIMIT', 'FST_FIELDS_LIMIT', 'FST_PARTS_LIMIT']);
const isUploadLimit = (err: unknown) =>
  err instanceof Error && UPLOAD_LIMIT_CODES.has((err as { code?: unknown }).code);
export const MALFORMED_UPLOAD_MESSAGE =
  'The upload could not be read: it is not complete, well-formed multipart/form-data ' +
  '(it may have been cut off). Send the photos that are missing again.';
/** The result standing for what the parser could not read of a malformed or cut-off upload. */
const malformedParts: UploadResult = {
  ok: false,
  fileName: 'The rest of the upload',
  status: 400,
  message: MALFORMED_UPLOAD_MESSAGE,
};
export const STORE_UNAVAILABLE_UPLOAD_MESSAGE =
  'Not uploaded: the photo store is temporarily unavailable. Please try again shortly.';
/** A photo the store failed to take, or one after it in the same upload (not tried). */
const storeRefused = (fileName: string): Ingested => ({
  result: { ok: false, fileName, status: 503, message: STORE_UNAVAILABLE_UPLOAD_MESSAGE },
  contentHash: null,
});
/** The results that stand for parts the parser stopped reading (answered after the files stored before them). */
const PARTS_REFUSALS: ReadonlySet<UploadResult> = new Set([tooManyParts, malformedParts]);
const SWEEP_EVERY_MS = 6 * 60 * 60 * 1000;

/** An error the multipart parser raised, as opposed to one of the upload's own work. */
class PartsRefused extends Error {
  constructor(readonly cause: unknown) {
    super('multipart parser error');
  }
}

function summary(results: UploadResult[]) {
  const uploaded = results.filter((r) => r.ok).length;
  const failed = results.length - uploaded;
  const firstError = results.find((r) => !r.ok);
  const last = results.at(-1);
  let message: string;
  if (results.length === 0) message = 'No files were sent.';
  else if (failed === 0) message = uploaded === 1 ? 'Photo uploaded successfully!' : `${uploaded} photos uploaded!`;
  else if (uploaded === 0) message = firstError && !firstError.ok ? firstError.message : 'Upload failed.';
  else if (last && !last.ok && PARTS_REFUSALS.has(last))
    message = `${uploaded === 1 ? '1 photo' : `${uploaded} photos`} uploaded. ${last.message}`;
  else message = `${uploaded} of ${results.length} photos uploaded.`;
  return { message, uploaded, failed, firstError };
}

export async function photosRoutes(
  app: FastifyInstance,
  ctx: AppContext,
): Promise<PhotosService & { firstPages: FirstPages }> {
  const derivatives = new RenderCache(DERIVATIVE_CACHE_BYTES);
  const repo = createPhotosRepository(ctx.db);
  const versions = createLibraryVersions(ctx.database.notifications);
  ctx.onClose.push(async () => versions.close());
  const firstPages = createFirstPages({ state: (userId) => repo.libraryState(userId), versions });
  const service = createPhotosService({
    repo,
    blobs: ctx.blobs,
    config: ctx.config,
    hooks: ctx,
    tierOf: async (userId, now) => (await ctx.subscriptions.get(userId, now)).tier,
    log: (msg, err) => app.log.error({ err }, msg),
    warn: (msg, err) => app.log.warn({ err }, msg),
    runAlone: ctx.database.runAlone,
  });

  ctx.onUserCreated.push((user) => service.seedDemoLibrary(user.id).then(() => undefined));
  // Compute the demo library's derivatives now, so the first sign-up does not wait for them.
  const warming = service
    .warmDemoLibrary()
    .catch((err) => app.log.error({ err }, 'demo library could not be prepared'));
  // Its blob writes end before the app says it has closed: one landed in a data folder being
  // removed after close (a test's ENOTEMPTY in CI).
  ctx.onClose.push(() => warming);
  if (ctx.config.startWorkers) {
    const sweep = () =>
      service
        .sweepOrphanBlobs(ctx.config.sweepGraceMs)
        .then((r) => r.removed && app.log.info(r, 'orphan blobs swept'))
        .catch((err) => app.log.error({ err }, 'orphan blob sweep failed'));
    app.addHook('onReady', async () => {
      void sweep();
    });
    const timer = setInterval(sweep, SWEEP_EVERY_MS);
    timer.unref();
    ctx.onClose.push(async () => clearInterval(timer));
  }

  await photosManageRoutes(app, ctx);

  // The photos' own first pages (the plain list, `page:N`), as the GET below builds them.
  firstPages.makes((userId, kind) => {
    if (kind === kindOf(undefined)) return () => service.firstPageJson(userId, undefined);
    const limit = kind.startsWith('page:') ? Number(kind.slice('page:'.length)) : NaN;
    return Number.isInteger(limit) ? () => service.firstPageJson(userId, limit) : null;
  });

  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/api/photos',
    {
      schema: { querystring: photosQuery, response: { 200: photoList.or(photoPage) } },
      // After the session lookup and the auth gate (app-wide hooks run first): a first page
      // already in memory at the version the database told is written here, at once.
      onRequest: (request, reply, done) => {
        const user = request.sessionUser;
        const kind = firstPageKind(request.query as Record<string, unknown>);
        // Once answered, the rest of the lifecycle sees the reply sent and does nothing.
        if (user && kind !== null) firstPages.answerAtOnce(request, reply, user.id, kind);
        done();
      },
    },
    async (request, reply) => {
      const user = userOf(request);
      const { limit, cursor } = request.query;
      if (limit === undefined && cursor) throw badRequest('cursor: needs limit');
      if (limit !== undefined && cursor) {
        // The same bytes the schema's serialiser would write (photo-json.test.ts), without zod.
        return sendJson(reply, await service.pageJson(user.id, limit, cursor));
      }
      // Written by photo-json.ts (tested equal to the schema's output), not through zod.
      return firstPages.sendPage(request, reply, user.id, kindOf(limit), () => service.firstPageJson(user.id, limit));
    },
  );

  r.get('/api/photos/summary', { schema: { response: { 200: photoSummary } } }, async (request) =>
    service.summary(userOf(request).id),
  );

  r.get('/api/photos/:id', { schema: { params: photoIdParams, response: { 200: photo } } }, async (request) =>
    service.get(userOf(request).id, request.params.id),
  );

  r.get(
    '/api/photos/:id/:variant',
    { schema: { params: photoFileParams, querystring: photoFileQuery } },
    async (request, reply) => {
      const user = userOf(request);
      const f = await service.file(user.id, request.params.id, request.params.variant);
      const etag = f.small ? `"${f.key}:small"` : `"${f.key}"`;
      reply.header('ETag', etag);
      reply.header('Vary', 'Cookie');
      // The URL names the content (its hash), so the answer under it never changes.
      reply.header(
        'Cache-Control',
        request.query.v === f.version ? 'private, max-age=31536000, immutable' : 'private, no-cache',
      );
      const inm = request.headers['if-none-match'];
      if (inm && inm.split(',').some((t) => t.trim().replace(/^W\//, '') === etag)) {
        return reply.status(304).send();
      }
      reply.type(f.mime);
      if (f.rendition) {
        // Made from the original on demand; cached like the derivatives (keyed apart from them).
        const { bytes } = await derivatives.get(`${f.key}:display:${f.scope}`, () =>
          service.renderDisplay(f.key, f.scope),
        );
        return reply.send(bytes);
      }
      if (f.small) {
        // Made from the thumbnail (itself from memory) once, then kept beside it.
        const { bytes } = await derivatives.get(`${f.key}:small:${f.scope}`, async () => {
          const thumbnail = await derivatives.get(`${f.key}:${f.scope}`, () => service.readFile(f.key));
          return service.renderSmall(thumbnail.bytes);
        });
        return reply.send(bytes);
      }
      if (request.params.variant === 'preview' || request.params.variant === 'thumbnail') {
        // Thumbnails and previews from memory: one write, no file system call. Per owner, as the
        // renditions: a file another account holds too, answered from its copy in memory (not an
        // object store's read), told this one that someone here has that photo and just opened it.
        const { bytes } = await derivatives.get(`${f.key}:${f.scope}`, () => service.readFile(f.key));
        return reply.send(bytes);
      }
      // Opened before anything is sent: a file missing from the store is still a 404 and a failing
      // store a 503, where a stream failing at its first read was a 500 with Fastify's own words.
      const file = await service.openFile(f.key);
      if (file.size !== null) reply.header('Content-Length', file.size);
      return reply.send(file.stream);
    },
  );

  r.delete(
    '/api/photos/:id',
    { schema: { params: photoIdParams, response: { 200: deletePhotoResponse } } },
    async (request) => {
      await service.remove(userOf(request).id, request.params.id);
      return { message: 'Photo deleted' };
    },
  );
  // Encapsulated: the multipart parser (and its hooks on every request) applies to the upload only.
  await app.register(async (scope) => {
    await scope.register(multipart, {
      throwFileSizeLimit: false,
      limits: {
        fileSize: ctx.config.maxUploadBytes,
        files: MAX_FILES_PER_REQUEST,
        fields: MAX_FIELDS_PER_REQUEST,
        fieldSize: 1024,
        parts: MAX_FILES_PER_REQUEST + MAX_FIELDS_PER_REQUEST,
      },
    });
    const r = scope.withTypeProvider<ZodTypeProvider>();

    r.post('/api/photos', { schema: { response: { 201: uploadResponse } } }, async (request, reply) => {
      const user = userOf(request);
      if (!request.isMultipart()) throw badRequest(SEND_PHOTOS_MESSAGE);
      // Counted until answered (or the client goes away); its answer starts the grace for the
      // gallery refresh that follows, while background work waits.
      reply.raw.once('close', ctx.activity.enterUpload());
      // Asked while the first file arrives.
      const allowance = service.uploadAllowance(user.id);
      allowance.catch(() => undefined); // awaited by each file
      const ingested: Ingested[] = [];
      const afterAnswer = answeredLater(reply, ctx.activity);
      // Errors the parser raised (the iterator's, or the one it destroyed a file stream with) are
      // the request's fault: busboy's own ('Boundary not found', 'Unexpected end of multipart
      // data') carry no status, and were answered as a 500.
      const parts = request.files();
      let file: Readable | undefined;
      let storeFailed = false;
      let notTried = 0;
      try {
        for (;;) {
          let next: IteratorResult<MultipartFile>;
          try {
            next = await parts.next();
          } catch (err) {
            throw new PartsRefused(err);
          }
          if (next.done) break;
          const part = next.value;
          // Within the size limit; a file over it arrives truncated and is refused.
          const stream = part.file;
          file = stream;
          if (storeFailed) {
            // Read past, not tried: each would wait out the store's timeouts again.
            stream.resume();
            await finished(stream);
            notTried += 1;
            continue;
          }
          try {
            ingested.push(
              await service.ingestOne(
                user.id,
                { fileName: part.filename, stream, truncated: () => stream.truncated },
                allowance,
                afterAnswer,
              ),
            );
          } catch (err) {
            if (!(err instanceof BlobStoreUnavailable)) throw err;
            // This photo is refused as such; those stored before it are answered and rewarded. A
            // 500 for the whole request told the user nothing was uploaded, and the retry it asked
            // for stored those photos a second time.
            request.log.warn({ err }, 'photo store unavailable: upload refused');
            ingested.push(storeRefused(part.filename || 'file'));
            storeFailed = true;
          }
        }
        if (notTried > 0) {
          ingested.push(storeRefused(notTried === 1 ? 'The photo after it' : `The ${notTried} photos after it`));
        }
      } catch (caught) {
        const err = caught instanceof PartsRefused ? caught.cause : caught;
        const fromParser = caught instanceof PartsRefused || (file !== undefined && file.errored === err);
        // Past a parser limit, or where a cut-off body stops, the files before it are stored
        // already (each in its own transaction): they are answered, rewarded and announced as
        // any other; the rest is refused in their results. A bare 413 or 500 said nothing had
        // been uploaded.
        if (isUploadLimit(err)) ingested.push({ result: tooManyParts, contentHash: null });
        else if (fromParser) ingested.push({ result: malformedParts, contentHash: null });
        else throw err;
      }
      if (ingested.length === 0) await allowance;
      // The gallery shows the new thumbnails next: they are served from memory, not read back.
      for (const { thumbnail } of ingested) {
        if (thumbnail) void derivatives.get(`${thumbnail.key}:${user.id}`, async () => thumbnail.bytes);
      }
      const reward = await service.afterBatch(user.id, ingested);
      // The gallery's refresh asks for the first page next: its build starts as the answer leaves,
      // and the listing joins it. Started before the reward, its statement and JSON lengthened the
      // reward's round trips (median 23 against 16 ms in a trace).
      if (ingested.some((i) => i.result.ok)) firstPages.prepare(user.id);
      const results: UploadResult[] = ingested.map((i) => i.result);
      const { firstError, ...counts } = summary(results);
      if (counts.uploaded > 0) return reply.status(201).send({ ...counts, results, reward });
      const status = firstError && !firstError.ok ? firstError.status : 400;
      // Not through the 201 schema: every failure status carries the same body shape.
      return reply.code(status as 201).send({ ...counts, results });
    });
  });
  return { ...service, firstPages };
}
