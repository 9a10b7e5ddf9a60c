import { FREE_PHOTO_LIMIT, formatStorage, planFor, STORAGE_QUOTA_BYTES, type Tier } from '@domain/plans';
import {
  PHOTO_LIST_DEFAULT,
  photoCategory,
  type Photo,
  type PhotoCategoryResult,
  type PhotoPage,
  type PhotoSummary,
  type PhotoVariant,
  type UploadResult,
  type UploadReward,
} from '@contract/photos';
import type { Config } from '../../config';
import type { Database } from '../../db/client';
import type { AfterAnswer, AppContext } from '../../context';
import { AppError, badRequest, notFound } from '../../http/errors';
import { withoutControlCharacters } from '../../lib/control-characters';
import { isTimestampText } from '../../lib/timestamps';
import { createSlots } from '../../lib/slots';
import {
  BLOB_REMOVAL_DEADLINE_MS,
  sha256Hex,
  type BlobStore,
  type OpenedBlob,
  type StreamStagedBlob,
} from '../../storage/blob-store';
import { EDITOR_DEMO_KEY, loadDemoLibrary, type DemoAsset } from './demo-library';
import {
  BROWSER_IMAGE_MIMES,
  ImageRejected,
  makeDerivatives,
  makeDisplayRendition,
  makeSmallThumbnail,
} from './image-pipeline';
import type {
  LibraryState,
  ListedPhotoRow,
  PhotoCursor,
  PhotoRow,
  PhotosRepository,
  ShownPageRows,
  ShownPhotoRow,
} from './photos.repository';
import { photoListJson, photoPageJson } from './photo-json';
import { cutText } from '../../lib/cut-text';
import { fewAtOnce } from '../../lib/few-at-once';
import { safeFileName } from './download-name';

/** PostgreSQL's text form of a timestamptz, e.g. '2024-01-01 00:00:00.123456+00'. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Blob hash prefix carried in image URLs: enough to bust caches when the content changes. */
const VERSION_CHARS = 16;
const FILE_NOT_FOUND = 'Photo file not found.';
/** Blobs written less than this long ago are never swept: an upload may still be on its way to its row. */
export const SWEEP_GRACE_MS = 10 * 60 * 1000;
/** Removals the store fails in one sweep before the sweep stops (the store is down, not one object). */
export const SWEEP_MAX_FAILURES = 10;
/**
 * Files a delete removes from the store at once, inside its transaction (holding the owner's and
 * the blob keys' locks). One at a time, a 200-photo delete (600 files and more) took 600 store
 * round trips, and a store that failed or stayed silent made each wait out its tries in turn.
 */
export const BLOB_REMOVALS_AT_ONCE = 8;
/** The name the orphan sweep's run is gated by across processes (`Database.runAlone`). */
export const ORPHAN_SWEEP = 'orphan-sweep';
/**
 * Uploads' and display renditions' decodes at once in this process (`lib/slots.ts`), taken in
 * turns per user: each holds one of libuv's 4 threads for as long as libvips reads the file (a
 * 100 MP photo: seconds), and sign-ins' password hashing and every file read wait for a free one.
 * Three uploads of each of two accounts took all four, and a third user's sign-in waited behind
 * them.
 */
export const DECODE_SLOTS = 2;

export const freeLimitMessage = (limit = FREE_PHOTO_LIMIT) =>
  `The Free plan holds up to ${limit} photos (the demo photos do not count). Upgrade your plan to upload more.`;

export const storageFullMessage = (tier: Tier, quotaBytes: number, usedBytes: number) =>
  `Storage full: your ${planFor(tier).name} plan holds ${formatStorage(quotaBytes)} of photos and ` +
  `${formatStorage(usedBytes)} is used. Delete photos or upgrade your plan to upload more.`;

/** The tier's storage quota (a test may configure smaller ones). */
export const storageQuotaFor = (config: Pick<Config, 'storageQuotaBytes'>, tier: Tier) =>
  config.storageQuotaBytes?.[tier] ?? STORAGE_QUOTA_BYTES[tier];

/** What a write outside an upload is allowed: checked again under the owner's lock before it lands. */
export interface StorageAllowance {
  quotaBytes: number;
  /** The 413 'Storage full' for `usedBytes` stored. */
  full(usedBytes: number): AppError;
}

/**
 * The storage quota check of writes outside an upload (the photo editor's versions): refuses with
 * 413 'Storage full' when storing `addBytes` more, less the `freedBytes` they replace, would pass
 * the user's quota. Answers the quota, for the write's own check under the owner's lock (an
 * upload may land between this check and the write).
 */
export function createStorageCheck(deps: {
  repo: Pick<PhotosRepository, 'storageUsed'>;
  config: Pick<Config, 'storageQuotaBytes'>;
  /** The tier of the user's active subscription ('free' without one). */
  tierOf: (userId: string) => Promise<Tier>;
}) {
  return async (userId: string, addBytes: number, freedBytes: number): Promise<StorageAllowance> => {
    const tier = await deps.tierOf(userId);
    const quotaBytes = storageQuotaFor(deps.config, tier);
    const full = (usedBytes: number) =>
      new AppError(413, storageFullMessage(tier, quotaBytes, usedBytes), 'storage_full');
    const used = await deps.repo.storageUsed(userId);
    if (used - freedBytes + addBytes > quotaBytes) throw full(used);
    return { quotaBytes, full };
  };
}
export type StorageCheck = ReturnType<typeof createStorageCheck>;

export function tooLargeMessage(maxBytes: number) {
  return `This file is larger than the ${Math.round(maxBytes / 1048576)} MB upload limit.`;
}

const CATEGORIES: ReadonlySet<string> = new Set(photoCategory.options);
/**
 * The stored category as the contract types it (analysis writes only these; anything else reads as
 * not analysed). A set lookup: zod's safeParse builds an error for every unanalysed photo's null.
 */
const categoryOf = (stored: string | null): PhotoCategoryResult | null =>
  stored !== null && CATEGORIES.has(stored) ? (stored as PhotoCategoryResult) : null;

/** A row as stored, or as shown (with its applied filter version overlaid, see current-version.ts). */
export function toPhoto(row: ListedPhotoRow & { appliedFilter?: ShownPhotoRow['appliedFilter'] }): Photo {
  const v = (key: string) => key.slice(0, VERSION_CHARS);
  const base = `/api/photos/${row.id}`;
  return {
    id: row.id,
    name: row.name,
    url: `${base}/original?v=${v(row.originalKey)}`,
    thumbnailUrl: `${base}/thumbnail?v=${v(row.thumbnailKey)}`,
    previewUrl: `${base}/preview?v=${v(row.previewKey)}`,
    displayUrl: BROWSER_IMAGE_MIMES.has(row.mime)
      ? `${base}/original?v=${v(row.originalKey)}`
      : `${base}/display?v=${v(row.originalKey)}`,
    uploadedAt: row.uploadedAt.toISOString(),
    takenAt: row.takenAt ? row.takenAt.toISOString() : null,
    size: row.size,
    width: row.width,
    height: row.height,
    thumbhash: row.thumbhash,
    analyzed: row.analyzed,
    category: categoryOf(row.category),
    tags: row.tags,
    description: row.description,
    albumId: row.albumId,
    isDemo: row.demoKey !== null,
    favorite: row.favorite,
    appliedFilter: row.appliedFilter ?? null,
  };
}

/**
 * One page of a keyset-paged list, as the API shows it. A first page that is also the last holds
 * every photo: its length is the total, without a count(*).
 */
export async function keysetPage(
  repo: Pick<PhotosRepository, 'withCurrentVersions'>,
  cursor: string | undefined,
  load: (after: PhotoCursor | null) => Promise<{ items: ListedPhotoRow[]; next: PhotoCursor | null }>,
  count: () => Promise<number>,
): Promise<PhotoPage> {
  const after = cursor ? decodeCursor(cursor) : null;
  const { items, next } = await load(after);
  const [total, shown] = await Promise.all([!after && !next ? items.length : count(), repo.withCurrentVersions(items)]);
  return { items: shown.map(toPhoto), nextCursor: next ? encodeCursor(next) : null, total };
}

export function encodeCursor(c: PhotoCursor): string {
  return Buffer.from(JSON.stringify([c.uploadedAt, c.id])).toString('base64url');
}
export function decodeCursor(s: string): PhotoCursor {
  try {
    const [uploadedAt, id] = JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as unknown[];
    if (typeof uploadedAt === 'string' && typeof id === 'string' && UUID.test(id) && isTimestampText(uploadedAt)) {
      return { uploadedAt, id };
    }
  } catch {
    // fall through
  }
  throw badRequest('cursor: not a cursor returned by this endpoint');
}

/**
 * A display name from an upload's file name: no folders, no extension, no control characters (the
 * client chooses the name, and PostgreSQL refuses a NUL in text: the insert failed with a 500), at
 * most 200 characters. Composed (NFC), as search words are (`searchWords`): a name from macOS
 * arrives decomposed, and PostgreSQL lowercases its 'İ' (I + U+0307) to 'i' + U+0307, a word
 * that 'istanbul' is no prefix of; composed, 'İ' is lowercased to 'i'.
 */
export function photoNameFrom(fileName: string | undefined): string {
  const base =
    withoutControlCharacters((fileName ?? '').normalize('NFC'))
      .split(/[\\/]/)
      .pop() ?? '';
  const stem = base.replace(/\.[A-Za-z0-9]{1,5}$/, '').trim();
  return cutText(stem || 'Photo', 200);
}

/** One file of an upload as it arrives; `truncated` is read once the stream has ended. */
export interface UploadInput {
  fileName: string;
  stream: AsyncIterable<Buffer>;
  truncated: () => boolean;
}

const runNow: AfterAnswer = (work) => work();

/**
 * Reads an upload to memory (the image work needs all of it) and, where the store can, hashes and
 * stages it on disk in the same pass, so nothing is left to write or hash once the last byte is in.
 */
async function receive(
  blobs: BlobStore,
  stream: AsyncIterable<Buffer>,
): Promise<{ bytes: Buffer; staged: StreamStagedBlob | null }> {
  const chunks: Buffer[] = [];
  async function* kept() {
    for await (const chunk of stream) {
      chunks.push(chunk);
      yield chunk;
    }
  }
  if (!blobs.stageStream) {
    for await (const chunk of stream) chunks.push(chunk);
    return { bytes: Buffer.concat(chunks), staged: null };
  }
  const staged = await blobs.stageStream(kept());
  return { bytes: Buffer.concat(chunks, staged.size), staged };
}

/** What the user's plan allows for new uploads, read once per request (re-checked at insert). */
export interface UploadAllowance {
  tier: Tier;
  /** Non-demo photos the plan holds; null = unlimited. */
  maxPhotos: number | null;
  quotaBytes: number;
}

/** One file's outcome; `contentHash` (the original's blob key) only when it was stored. */
export interface Ingested {
  result: UploadResult;
  contentHash: string | null;
  /** The stored thumbnail, which the gallery asks for next. */
  thumbnail?: { key: string; bytes: Buffer };
  /**
   * The ingest listeners (the analysis queue's insert), started once the row is committed and
   * never rejecting; `afterBatch` waits for them, so the answer comes after them.
   */
  announced?: Promise<void>;
}

/** A page as the API answers it: photos, the cursor after them and the library's total. */
function pageJsonOf({ state, items, next }: ShownPageRows): string {
  return photoPageJson({ items: items.map(toPhoto), nextCursor: next ? encodeCursor(next) : null, total: state.total });
}

/**
 * How a delete removes the files no row references any more (inside its transaction, holding
 * their locks): a file the store fails to remove is logged and left to the orphan sweep. Thrown,
 * the error rolled the delete back over the files already removed: photos pointing at files that
 * were gone, answered as a 500. BLOB_REMOVALS_AT_ONCE at a time, and none begun after one has
 * failed: a store that is failing would make each wait out its tries while the locks are held,
 * and the sweep finds whatever is left (unreferenced files under the blob prefix).
 */
export function removeOrLeaveToSweep(
  blobs: BlobStore,
  log: (msg: string, err?: unknown) => void,
  deadlineMs = BLOB_REMOVAL_DEADLINE_MS,
) {
  return async (keys: string[]) => {
    if (keys.length === 0) return;
    const signal = AbortSignal.timeout(deadlineMs);
    const begun = await fewAtOnce(keys, BLOB_REMOVALS_AT_ONCE, (key) =>
      signal.aborted
        ? Promise.resolve(false)
        : blobs.delete(key, { signal }).then(
            () => true,
            (err: unknown) => {
              const why = signal.aborted ? `was not removed within ${deadlineMs} ms` : 'could not be removed';
              log(`blob ${key} ${why}; left to the orphan sweep`, err);
              return false;
            },
          ),
    );
    if (begun < keys.length)
      log(`${keys.length - begun} more blobs not tried after a failure; left to the orphan sweep`);
  };
}

export function createPhotosService(deps: {
  repo: PhotosRepository;
  blobs: BlobStore;
  config: Config;
  hooks: Pick<AppContext, 'onPhotoIngested' | 'onPhotosUploaded' | 'onPhotoDeleted'>;
  /** The tier of the user's active subscription ('free' without one). */
  tierOf: (userId: string, now: Date) => Promise<Tier>;
  log: (msg: string, err?: unknown) => void;
  /** Worth a look, not a failure of the server (an upload refused for a reason no rule names). */
  warn?: (msg: string, err?: unknown) => void;
  now?: () => Date;
  demoDir?: string;
  /** The cluster-wide gate the orphan sweep runs behind (`Database.runAlone`); none: it just runs. */
  runAlone?: Database['runAlone'];
}) {
  const { repo, blobs, config, hooks } = deps;
  const now = deps.now ?? (() => new Date());
  const decodes = createSlots(DECODE_SLOTS);
  let demoStored: Promise<DemoAsset[]> | null = null;

  /** Demo derivatives are computed once per process; written to this store once per app. */
  function demoAssets(): Promise<DemoAsset[]> {
    if (!demoStored) {
      demoStored = (async () => {
        const assets = await loadDemoLibrary(deps.demoDir);
        for (const a of assets) {
          await Promise.all([
            blobs.put(a.original),
            blobs.put(a.derivatives.preview),
            blobs.put(a.derivatives.thumbnail),
          ]);
        }
        return assets;
      })();
      demoStored.catch(() => (demoStored = null));
    }
    return demoStored;
  }

  async function announceIngested(rows: PhotoRow[], afterAnswer: AfterAnswer = runNow, thumbnail?: Buffer) {
    for (const hook of hooks.onPhotoIngested ?? []) {
      for (const r of rows) {
        await hook({ id: r.id, userId: r.userId, thumbnail }, afterAnswer).catch((err) =>
          deps.log('onPhotoIngested hook failed', err),
        );
      }
    }
  }

  async function resolve(userId: string, id: string): Promise<ShownPhotoRow> {
    const row =
      id === 'demo'
        ? await repo.findByDemoKey(userId, EDITOR_DEMO_KEY)
        : UUID.test(id)
          ? await repo.find(userId, id)
          : undefined;
    if (!row) throw notFound('Photo not found.');
    return repo.withCurrentVersion(row);
  }

  return {
    /** Starts computing the demo library so the first registration does not wait for it. */
    warmDemoLibrary: () => demoAssets().then(() => undefined),

    /** Decodes running and waiting for a place (DECODE_SLOTS). */
    decodeStats: () => decodes.stats(),

    /** Rows as the API shows them (applied filter versions overlaid), for features that select photos themselves. */
    async present(rows: ListedPhotoRow[]): Promise<Photo[]> {
      return (await repo.withCurrentVersions(rows)).map(toPhoto);
    },

    async summary(userId: string): Promise<PhotoSummary> {
      const { categories, ...counts } = await repo.summary(userId);
      return {
        ...counts,
        categories: categories.map((c) => ({ category: categoryOf(c.category) ?? 'uncategorized', count: c.count })),
      };
    },

    /**
     * The JSON of the page after `cursor` (never cached: built for each request), read in one
     * statement with the library state it belongs to (the total is its trigger-kept count) and
     * written as photo-json.ts writes the first pages, not through zod.
     */
    async pageJson(userId: string, limit: number, cursor: string): Promise<string> {
      return pageJsonOf(await repo.shownPage(userId, limit, decodeCursor(cursor)));
    },

    /**
     * A first page's JSON and the library state it was read at, in one statement: what the
     * first-page cache stores. `limit` undefined: the plain list (the newest PHOTO_LIST_DEFAULT).
     */
    async firstPageJson(userId: string, limit: number | undefined): Promise<{ state: LibraryState; json: string }> {
      const page = await repo.shownPage(userId, limit ?? PHOTO_LIST_DEFAULT);
      if (limit === undefined) return { state: page.state, json: photoListJson(page.items.map(toPhoto)) };
      return { state: page.state, json: pageJsonOf(page) };
    },

    async get(userId: string, id: string): Promise<Photo> {
      return toPhoto(await resolve(userId, id));
    },

    /**
     * The blob behind an image URL, only for its owner (anyone else gets the same 404 as a missing
     * photo). Not read here: `openFile` (or a cache keyed by `key`, the content hash) reads it.
     */
    async file(userId: string, id: string, variant: PhotoVariant) {
      const row = await resolve(userId, id);
      // Whose renders and copies of it may be shared in memory: blobs are stored by content, so
      // two accounts holding the same file share its keys, and a render already made (answered in
      // a millisecond, not a decode's hundreds) or a file kept (not read from the store) would
      // tell one that the other has that photo and has just viewed it. The demo library's files
      // are everyone's, and shared.
      const scope = row.demoKey ? 'demo' : userId;
      if (variant === 'display') {
        const key = row.originalKey;
        // A browser shows the original as it is; anything else gets a JPEG rendition of it.
        const rendition = !BROWSER_IMAGE_MIMES.has(row.mime);
        const mime = rendition ? 'image/jpeg' : row.mime;
        return { key, mime, version: key.slice(0, VERSION_CHARS), name: row.name, rendition, small: false, scope };
      }
      const key = variant === 'original' ? row.originalKey : variant === 'preview' ? row.previewKey : row.thumbnailKey;
      const mime = variant === 'original' ? row.mime : 'image/webp';
      // 'small' is made from the thumbnail, so it shares the thumbnail's key and version.
      const small = variant === 'small';
      return { key, mime, version: key.slice(0, VERSION_CHARS), name: row.name, rendition: false, small, scope };
    },

    /** The display rendition of an original (see `makeDisplayRendition`), or 404 when its file is missing; `turnOf` is whose turn it takes among the decodes. */
    async renderDisplay(key: string, turnOf = ''): Promise<Buffer> {
      // Read inside the decode's place: read first, every request waiting for a place held its
      // whole original (up to MAX_UPLOAD_MB each), so a burst of renditions of different photos
      // (120 allowed per user and 5 minutes) held them all in memory at once, where only
      // DECODE_SLOTS can be decoded. The place's wait now includes the read.
      const render = async () => {
        const bytes = await blobs.read(key).catch((err: NodeJS.ErrnoException) => {
          throw err.code === 'ENOENT' ? notFound(FILE_NOT_FOUND) : err;
        });
        return makeDisplayRendition(bytes);
      };
      // An original the upload's checks refuse today may have been stored before them: its refusal
      // is the answer (422), not a server error.
      return decodes.run(render, turnOf).catch((err: unknown) => {
        throw err instanceof ImageRejected ? new AppError(err.status, err.message, 'unprocessable') : err;
      });
    },

    /** The small thumbnail made from a thumbnail's bytes (see `makeSmallThumbnail`). */
    renderSmall(thumbnail: Buffer): Promise<Buffer> {
      return makeSmallThumbnail(thumbnail);
    },

    /** The blob's size and bytes (one request to an object store), or 404 when its file is missing. */
    async openFile(key: string): Promise<OpenedBlob> {
      return blobs.open(key).catch((err: NodeJS.ErrnoException) => {
        throw err.code === 'ENOENT' ? notFound(FILE_NOT_FOUND) : err;
      });
    },

    /** The blob's bytes, or 404 when its file is missing. */
    async readFile(key: string): Promise<Buffer> {
      try {
        return await blobs.read(key);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw notFound(FILE_NOT_FOUND);
        throw err;
      }
    },

    async remove(userId: string, id: string) {
      if (!UUID.test(id)) throw notFound('Photo not found.');
      const removed = await repo.deletePhoto(
        userId,
        id,
        removeOrLeaveToSweep(blobs, deps.log, config.blobRemovalDeadlineMs),
      );
      if (!removed) throw notFound('Photo not found.');
      for (const hook of hooks.onPhotoDeleted ?? []) {
        await hook({ id, userId }).catch((err) => deps.log('onPhotoDeleted hook failed', err));
      }
    },

    /** The plan's photo limit (demo photos do not count; paid tiers unlimited) and storage quota. */
    async uploadAllowance(userId: string): Promise<UploadAllowance> {
      const tier = await deps.tierOf(userId, now());
      return {
        tier,
        maxPhotos: tier === 'free' ? FREE_PHOTO_LIMIT : null,
        quotaBytes: storageQuotaFor(config, tier),
      };
    },

    /**
     * Checks, derives, stores and records one uploaded file. The file is hashed and written out of
     * sight as it arrives (while the plan's checks are asked); nothing becomes visible until it has
     * been fully validated and decoded; the row is inserted last, in one transaction, so a crash
     * leaves at most unreferenced blobs (swept later), never a half-visible photo.
     */
    async ingestOne(
      userId: string,
      input: UploadInput,
      allowance: UploadAllowance | Promise<UploadAllowance>,
      afterAnswer: AfterAnswer = runNow,
    ): Promise<Ingested> {
      const fileName = input.fileName || 'file';
      const fail = (status: number, message: string): Ingested => ({
        result: { ok: false, fileName, status, message },
        contentHash: null,
      });
      // Only the user is needed to ask these, so they are answered while the bytes arrive; the
      // insert checks both again under the user's lock.
      const checks = (async () => {
        const [plan, usage] = await Promise.all([allowance, repo.usage(userId)]);
        return { plan, counted: usage.counted, used: usage.usedBytes };
      })();
      checks.catch(() => undefined); // awaited below, once the file is in
      let received: Awaited<ReturnType<typeof receive>>;
      try {
        received = await receive(blobs, input.stream);
      } catch (err) {
        await checks.catch(() => undefined);
        throw err;
      }
      const { bytes } = received;
      let checked: Awaited<typeof checks>;
      try {
        checked = await checks;
      } catch (err) {
        await received.staged?.discard();
        throw err;
      }
      const { maxPhotos, quotaBytes, tier } = checked.plan;
      const storageFull = (used: number) => fail(413, storageFullMessage(tier, quotaBytes, used));
      const refuse = async (refusal: Ingested) => {
        await received.staged?.discard();
        return refusal;
      };
      if (input.truncated()) return refuse(fail(413, tooLargeMessage(config.maxUploadBytes)));
      if (bytes.length === 0) return refuse(fail(400, 'This file is empty.'));
      if (maxPhotos !== null && checked.counted >= maxPhotos) return refuse(fail(403, freeLimitMessage(maxPhotos)));
      if (checked.used + bytes.length > quotaBytes) return refuse(storageFull(checked.used));

      // A store that cannot stage a stream writes the original (out of sight) while it is decoded.
      const staging = received.staged ? Promise.resolve(received.staged) : blobs.stage(bytes);
      staging.catch(() => undefined); // awaited below, after the decode
      let d;
      try {
        d = await decodes.run(() => makeDerivatives(bytes), userId);
      } catch (err) {
        await (await staging).discard();
        if (err instanceof ImageRejected) {
          // The catch-all answer names no reason; the decoder's own words go to the log.
          if (err.unexplained && err.cause) deps.warn?.(`upload refused: ${err.message}`, err.cause);
          return fail(err.status, err.message);
        }
        throw err;
      }
      const staged = await staging;
      const originalKey = staged.key;
      const previewKey = sha256Hex(d.preview);
      const thumbnailKey = sha256Hex(d.thumbnail);
      // Written while the row's transaction runs; it waits for them before it commits.
      const each = [staged.commit(), blobs.put(d.preview), blobs.put(d.thumbnail)];
      const writes = Promise.all(each);
      writes.catch(() => undefined);
      const rewrite = () => Promise.all([blobs.put(bytes), blobs.put(d.preview), blobs.put(d.thumbnail)]);
      let row: Awaited<ReturnType<typeof repo.insertUploaded>>;
      try {
        row = await repo.insertUploaded(
          {
            userId,
            name: photoNameFrom(input.fileName),
            fileName: safeFileName(input.fileName) || null,
            mime: d.mime,
            size: bytes.length,
            width: d.width,
            height: d.height,
            originalKey,
            previewKey,
            thumbnailKey,
            thumbhash: d.thumbhash,
            takenAt: d.takenAt,
            exif: d.exif,
            uploadedAt: now(),
          },
          {
            maxCounted: maxPhotos,
            quotaBytes,
            ensureBlobs: async () => {
              await writes;
              const present = await Promise.all([originalKey, previewKey, thumbnailKey].map((k) => blobs.has(k)));
              if (present.includes(false)) await rewrite();
            },
          },
        );
      } catch (err) {
        // A failing store fails the first write and the insert with it while the others are still
        // on their way: they are waited for and the original's staging copy removed, so the answer
        // leaves no send to the store running and no staged file behind it.
        await Promise.allSettled(each);
        await staged.discard();
        throw err;
      }
      // A refused insert leaves only unreferenced blobs, which the orphan sweep removes.
      await writes;
      if (row === 'limit') return fail(403, freeLimitMessage(maxPhotos ?? FREE_PHOTO_LIMIT));
      if (row === 'quota') return storageFull(await repo.storageUsed(userId));
      return {
        result: { ok: true, fileName, photo: toPhoto(row) },
        contentHash: row.originalKey,
        thumbnail: { key: row.thumbnailKey, bytes: d.thumbnail },
        // Not awaited here: their statements run while the request's next part is read and
        // alongside the reward's, instead of one more round trip before them.
        announced: announceIngested([row], afterAnswer, d.thumbnail),
      };
    },

    /**
     * After a batch: the upload reward (per photo content, see rewards.service.ts) and anything
     * else listening, once each file's ingest listeners are done too. Failures are logged, never
     * fatal. Answers the reward, null when none.
     */
    async afterBatch(userId: string, ingested: Ingested[]): Promise<UploadReward | null> {
      const uploads = ingested.flatMap((i) =>
        i.result.ok && i.contentHash ? [{ photoId: i.result.photo.id, contentHash: i.contentHash }] : [],
      );
      const rewarded = (async () => {
        let reward: UploadReward | null = null;
        if (uploads.length === 0) return reward;
        for (const hook of hooks.onPhotosUploaded ?? []) {
          const r = await hook(userId, uploads).catch((err) => deps.log('onPhotosUploaded hook failed', err));
          if (r && r.points > 0) reward = r;
        }
        return reward;
      })();
      const [reward] = await Promise.all([rewarded, ...ingested.map((i) => i.announced)]);
      return reward;
    },

    /** Gives a new account the demo library: one multi-row insert over blobs stored once per process. */
    async seedDemoLibrary(userId: string) {
      const assets = await demoAssets();
      // Written once per process, but the orphan sweep may have removed a blob no account used
      // any more since: the new rows must not point at missing files. Checked first outside the
      // locks (a missing file is written without holding them), then again under them.
      const ensureBlobs = () =>
        Promise.all(
          assets.flatMap((a) =>
            (['original', 'preview', 'thumbnail'] as const).map(async (which) => {
              if (!(await blobs.has(sha(a, which)))) await blobs.put(bufferOf(a, which));
            }),
          ),
        ).then(() => undefined);
      await ensureBlobs();
      const t = now().getTime();
      const rows = await repo.insertDemo(
        assets.map((a, i) => ({
          userId,
          name: a.name,
          mime: a.derivatives.mime,
          size: a.original.length,
          width: a.derivatives.width,
          height: a.derivatives.height,
          originalKey: sha(a, 'original'),
          previewKey: sha(a, 'preview'),
          thumbnailKey: sha(a, 'thumbnail'),
          thumbhash: a.derivatives.thumbhash,
          takenAt: a.derivatives.takenAt,
          exif: a.derivatives.exif,
          // Manifest order is gallery order (newest first): one millisecond apart.
          uploadedAt: new Date(t - i),
          demoKey: a.demoKey,
        })),
        ensureBlobs,
      );
      await announceIngested(rows);
      return rows.length;
    },

    /**
     * Deletes blobs no row references, except those written in the last SWEEP_GRACE_MS (an
     * upload may be between writing its blobs and inserting its row). Shared blobs are kept as
     * long as any photo or version uses them.
     *
     * One sweep at a time across every process and machine on the database: each lists the whole
     * store and locks every old key in batches, so N processes (each sweeping at its start and
     * every 6 hours) paid N times the List requests and the lock waits, and raced each other's
     * stats and deletes. A sweep that finds another running skips its turn (`skipped`).
     */
    async sweepOrphanBlobs(graceMs = SWEEP_GRACE_MS): Promise<SweepResult> {
      if (!deps.runAlone) return sweep(graceMs);
      const run = await deps.runAlone(ORPHAN_SWEEP, () => sweep(graceMs));
      return run.ran ? run.value : { checked: 0, removed: 0, failed: 0, skipped: true };
    },
  };

  async function sweep(graceMs: number): Promise<SweepResult> {
    const cutoff = new Date(now().getTime() - graceMs);
    let checked = 0;
    let removed = 0;
    let failed = 0;
    let batch: string[] = [];
    // Inside the transaction that holds the batch's blob-key locks (`deleteIfUnreferenced`),
    // BLOB_REMOVALS_AT_ONCE at a time as a delete's removals: one at a time, a batch of 500
    // orphans took 1,000 store round trips with its locks held. A failure stops only the run's
    // last (SWEEP_MAX_FAILURES), after every removal begun has settled (`fewAtOnce`), so none
    // outlives the locks.
    const removeUnreferenced = (keys: string[]) =>
      fewAtOnce(keys, BLOB_REMOVALS_AT_ONCE, async (key) => {
        try {
          const info = await blobs.stat(key);
          if (!info || info.modifiedAt >= cutoff) return true;
          await blobs.delete(key);
          removed += 1;
          return true;
        } catch (err) {
          // Thrown, one object the store refused (or a moment's 5xx) ended the run there, and
          // every blob listed after it was left for ever if the refusal lasted. Left for the next
          // run; a store failing on many is down, and the run stops.
          failed += 1;
          deps.log(`orphan blob ${key} could not be removed; left for the next sweep`, err);
          if (failed >= SWEEP_MAX_FAILURES) throw err;
          return true;
        }
      });
    const flush = async () => {
      await repo.deleteIfUnreferenced(batch, removeUnreferenced);
      batch = [];
    };
    for await (const b of blobs.list()) {
      checked += 1;
      if (b.modifiedAt < cutoff) batch.push(b.key);
      if (batch.length >= 500) await flush();
    }
    await flush();
    if ('removeStaleTempFiles' in blobs && typeof blobs.removeStaleTempFiles === 'function') {
      await (blobs.removeStaleTempFiles as (d: Date) => Promise<number>)(cutoff);
    }
    return { checked, removed, failed, skipped: false };
  }
}
export type PhotosService = ReturnType<typeof createPhotosService>;
export interface SweepResult {
  checked: number;
  removed: number;
  failed: number;
  /** Another process's sweep was running: this one did nothing. */
  skipped: boolean;
}

const keyCache = new WeakMap<Buffer, string>();
const bufferOf = (a: DemoAsset, which: 'original' | 'preview' | 'thumbnail') =>
  which === 'original' ? a.original : which === 'preview' ? a.derivatives.preview : a.derivatives.thumbnail;
function sha(a: DemoAsset, which: 'original' | 'preview' | 'thumbnail'): string {
  const buf = bufferOf(a, which);
  let k = keyCache.get(buf);
  if (!k) {
    k = sha256Hex(buf);
    keyCache.set(buf, k);
  }
  return k;
}
