import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  deletePhotosBody,
  deletePhotosResponse,
  downloadQuery,
  favoriteBody,
  favoriteResponse,
  photoInfo,
} from '@contract/photos-manage';
import { photoIdParams, photoPage, photosQuery } from '@contract/photos';
import type { AppContext } from '../../context';
import { userOf } from '../../http/session';
import { contentDisposition } from './download-name';
import { createPhotosManageRepository } from './photos-manage.repository';
import { createPhotosManageService } from './photos-manage.service';
import { createPhotosRepository } from './photos.repository';

const FAVORITES_PAGE_DEFAULT = 120;

/**
 * Delete many, favourite, the Favorites list, Info and Download (see photos-manage.service.ts).
 * Registered by photosRoutes; every route needs a session.
 */
export async function photosManageRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const service = createPhotosManageService({
    repo: createPhotosManageRepository(ctx.db),
    photos: createPhotosRepository(ctx.db),
    blobs: ctx.blobs,
    onPhotosDeleted: () => ctx.onPhotosDeleted ?? [],
    log: (msg, err) => app.log.error({ err }, msg),
    removalDeadlineMs: ctx.config.blobRemovalDeadlineMs,
  });
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.post(
    '/api/photos/delete',
    { schema: { body: deletePhotosBody, response: { 200: deletePhotosResponse } } },
    async (request) => service.deleteMany(userOf(request).id, request.body.ids),
  );

  r.get(
    '/api/photos/favorites',
    { schema: { querystring: photosQuery, response: { 200: photoPage } } },
    async (request) =>
      service.favoritesPage(userOf(request).id, request.query.limit ?? FAVORITES_PAGE_DEFAULT, request.query.cursor),
  );

  r.put(
    '/api/photos/:id/favorite',
    { schema: { params: photoIdParams, body: favoriteBody, response: { 200: favoriteResponse } } },
    async (request) => service.setFavorite(userOf(request).id, request.params.id, request.body.favorite),
  );

  r.get('/api/photos/:id/info', { schema: { params: photoIdParams, response: { 200: photoInfo } } }, async (request) =>
    service.info(userOf(request).id, request.params.id),
  );

  r.get(
    '/api/photos/:id/download',
    { schema: { params: photoIdParams, querystring: downloadQuery } },
    async (request, reply) => {
      const f = await service.download(userOf(request).id, request.params.id, request.query.version);
      reply.header('Content-Disposition', contentDisposition(f.fileName));
      reply.header('Cache-Control', 'private, no-store');
      reply.header('X-Content-Type-Options', 'nosniff');
      if (f.file.size !== null) reply.header('Content-Length', f.file.size);
      reply.type(f.mime);
      return reply.send(f.file.stream);
    },
  );
}
