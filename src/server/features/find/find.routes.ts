import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { duplicates, similarPhotos, timelinePage, timelineQuery } from '@contract/find';
import { photoIdParams, type Photo } from '@contract/photos';
import type { AppContext } from '../../context';
import { userOf } from '../../http/session';
import type { FirstPages, LibraryState, ListedPhotoRow } from '../photos/index';
import { createFindRepository } from './find.repository';
import { createFindService, type FindService } from './find.service';

export interface FindRoutesOptions {
  /** Rows to the API's Photo, as the photos feature shows them (applied filter versions included). */
  present: (rows: ListedPhotoRow[]) => Promise<Photo[]>;
  /** The photos feature's cache of first pages (the timeline without search is the gallery's first screen). */
  firstPages: FirstPages;
}

/**
 * Finding photos: the timeline by date taken with search, "Similar photos" and the "Possible
 * duplicates" smart album. Every answer is the signed-in user's own photos only.
 */
export async function findRoutes(app: FastifyInstance, ctx: AppContext, opts: FindRoutesOptions): Promise<FindService> {
  const service = createFindService({ repo: createFindRepository(ctx.db), blobs: ctx.blobs, present: opts.present });
  // A new photo's fingerprint is made in the background once its upload has been answered:
  // uploads do not wait for it, and the endpoints below fill in any that are missing. Those still
  // being made when the server stops are finished before the database closes.
  const pending = new Set<Promise<void>>();
  ctx.onPhotoIngested?.push(async (p, afterAnswer) => {
    afterAnswer(() => {
      const work = service
        .fingerprintPhoto(p.userId, p.id, p.thumbnail)
        .then(() => undefined)
        .catch((err) => app.log.error({ err }, 'photo fingerprint failed'))
        .finally(() => pending.delete(work));
      pending.add(work);
    });
  });
  ctx.onClose.push(async () => {
    while (pending.size) await Promise.allSettled([...pending]);
  });
  const r = app.withTypeProvider<ZodTypeProvider>();

  /** The timeline's first page of `limit`, at a library state read with it (its total). */
  const timelineJson = async (userId: string, limit: number, state: LibraryState) =>
    JSON.stringify(timelinePage.parse(await service.timeline(userId, { limit }, state.total)));
  // The gallery's own first page: made again by the photos feature after an upload (prepare).
  opts.firstPages.makes((userId, kind) => {
    const limit = kind.startsWith('timeline:') ? Number(kind.slice('timeline:'.length)) : NaN;
    return Number.isInteger(limit)
      ? async (state) => ({ state, json: await timelineJson(userId, limit, state) })
      : null;
  });

  r.get(
    '/api/photos/timeline',
    { schema: { querystring: timelineQuery, response: { 200: timelinePage } } },
    async (request, reply) => {
      const userId = userOf(request).id;
      const { limit, cursor, q, category } = request.query;
      // Only the whole timeline's first page is kept in memory (the gallery's first screen).
      if (cursor || category || (q ?? '').trim() !== '') return service.timeline(userId, request.query);
      return opts.firstPages.send(request, reply, userId, `timeline:${limit}`, (state) =>
        timelineJson(userId, limit, state),
      );
    },
  );

  r.get('/api/photos/duplicates', { schema: { response: { 200: duplicates } } }, async (request) =>
    service.duplicates(userOf(request).id),
  );

  r.get(
    '/api/photos/:id/similar',
    { schema: { params: photoIdParams, response: { 200: similarPhotos } } },
    async (request) => service.similar(userOf(request).id, request.params.id),
  );
  return service;
}
