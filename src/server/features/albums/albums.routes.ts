import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { album, albumList, createAlbumBody } from '@contract/albums';
import type { AppContext } from '../../context';
import { userOf } from '../../http/session';
import { createAlbumsRepository } from './albums.repository';
import { createAlbumsService, idempotencyKeyOf } from './albums.service';

export async function albumsRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const repo = createAlbumsRepository(ctx.db);
  const service = createAlbumsService(repo);
  // A deleted photo's memberships went with it; an album it emptied goes too.
  ctx.onPhotoDeleted?.push(({ userId }) => repo.syncSmartAlbums(userId, []));
  (ctx.onPhotosDeleted ??= []).push((userId) => repo.syncSmartAlbums(userId, []));
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get('/api/albums', { schema: { response: { 200: albumList } } }, async (request) => {
    const user = userOf(request);
    return service.list(user.id);
  });

  r.post('/api/albums', { schema: { body: createAlbumBody, response: { 201: album } } }, async (request, reply) => {
    const user = userOf(request);
    const created = await service.create(user.id, request.body, idempotencyKeyOf(request.headers['idempotency-key']));
    return reply.code(201).send(created);
  });
}
