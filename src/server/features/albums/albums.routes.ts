import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { album, albumList, createAlbumBody } from '@contract/albums';
import type { AppContext } from '../../context';
import { userOf } from '../../http/session';
import { createAlbumsRepository } from './albums.repository';
import { createPasses } from '../../db/passes';
import { createAlbumsService, idempotencyKeyOf, repairSmartAlbumsOnce, SMART_ALBUM_REPAIR } from './albums.service';

export async function albumsRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const repo = createAlbumsRepository(ctx.db);
  const service = createAlbumsService(repo);
  // A deleted photo's memberships went with it; an album it emptied goes too.
  ctx.onPhotoDeleted?.push(({ userId }) => repo.syncSmartAlbums(userId, []));
  (ctx.onPhotosDeleted ??= []).push((userId) => repo.syncSmartAlbums(userId, []));
  if (ctx.config.startWorkers) {
    // After start, in the background, once across processes and while due in the database: photos
    // analysed while their album write was lost stay out of their smart album until this runs.
    let stopping = false;
    let begun = false;
    let repairing: Promise<unknown> = Promise.resolve();
    app.addHook('onReady', async () => {
      repairing = ctx.database
        .runAlone(SMART_ALBUM_REPAIR, () => {
          begun = true;
          return repairSmartAlbumsOnce(repo, createPasses(ctx.db), {
            pause: () => new Promise<void>((resolve) => ctx.activity.whenQuiet(resolve)),
            stopping: () => stopping,
            log: (msg, err) => app.log.warn({ err }, msg),
          });
        })
        .then((r) => r.ran && r.value && app.log.info(r.value, 'smart album repair done'))
        .catch((err: unknown) => app.log.error({ err }, 'smart album repair failed'));
    });
    ctx.onClose.push(async () => {
      stopping = true;
      // A repair still waiting for its turn (another run, the orphan sweep, holds it: on
      // PostgreSQL they take turns) would hold the shutdown for that whole run; it will not begin.
      if (begun) await repairing;
    });
  }
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
