import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  availableQuery,
  availableResponse,
  editResponse,
  filterRequest,
  previewResponse,
  renderQuery,
  revertBody,
} from '@contract/filters';
import type { AppContext } from '../../context';
import { userOf } from '../../http/session';
import { createStorageCheck } from '../photos/index';
import { createFilterPool, type FilterPool } from './filter-pool';
import { createFiltersRepository } from './filters.repository';
import { createFiltersService, type FiltersService } from './filters.service';

export interface FiltersRouteOptions {
  /** Tests hand in their own pool (to watch it); by default one filter thread. */
  pool?: FilterPool;
}

/** Photo editor: filter swatches, cached previews, apply (a new version) and revert. */
export async function filtersRoutes(
  app: FastifyInstance,
  ctx: AppContext,
  opts: FiltersRouteOptions = {},
): Promise<FiltersService> {
  const repo = createFiltersRepository(ctx.db);
  const pool = opts.pool ?? createFilterPool(undefined, { imageThreads: ctx.config.imageThreads });
  ctx.onClose.push(() => pool.close());
  const service = createFiltersService({
    repo,
    blobs: ctx.blobs,
    pool,
    log: (msg, err) => app.log.error({ err }, msg),
    checkQuota: createStorageCheck({
      repo,
      config: ctx.config,
      tierOf: async (userId) => (await ctx.subscriptions.get(userId)).tier,
    }),
  });
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get(
    '/api/photo-filters/available',
    { schema: { querystring: availableQuery, response: { 200: availableResponse } } },
    async (request) => service.available(userOf(request).id, request.query.photoId),
  );

  r.get('/api/photo-filters/render', { schema: { querystring: renderQuery } }, async (request, reply) => {
    const user = userOf(request);
    const { photoId, filterName, intensity, size, v } = request.query;
    const tag = await service.renderTag(user.id, photoId, filterName, intensity, size);
    reply.header('ETag', tag.etag);
    reply.header('Vary', 'Cookie');
    // Deterministic for (source blob, filter, intensity, size): with the source's hash in the URL it never changes.
    reply.header('Cache-Control', v === tag.version ? 'private, max-age=31536000, immutable' : 'private, no-cache');
    const inm = request.headers['if-none-match'];
    if (inm && inm.split(',').some((t) => t.trim().replace(/^W\//, '') === tag.etag)) {
      return reply.status(304).send();
    }
    const out = await service.render(user.id, photoId, filterName, intensity, size);
    reply.header('X-Render-Cache', out.hit ? 'hit' : 'miss');
    reply.type('image/jpeg');
    return reply.send(out.bytes);
  });

  r.post(
    '/api/photo-filters/preview',
    { schema: { body: filterRequest, response: { 200: previewResponse } } },
    async (request, reply) => {
      const { previewUrl, hit } = await service.preview(userOf(request).id, request.body);
      reply.header('X-Render-Cache', hit ? 'hit' : 'miss');
      return { previewUrl };
    },
  );

  r.post(
    '/api/photo-filters/apply',
    { schema: { body: filterRequest, response: { 200: editResponse } } },
    async (request) => ({
      message: 'Filter applied',
      photo: await service.apply(userOf(request).id, request.body),
    }),
  );

  r.post(
    '/api/photo-filters/revert',
    { schema: { body: revertBody, response: { 200: editResponse } } },
    async (request) => ({
      message: 'Original restored',
      photo: await service.revert(userOf(request).id, request.body.photoId),
    }),
  );

  return service;
}
