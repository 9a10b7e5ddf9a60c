import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { activitiesResponse, createActivityBody, createActivityResponse } from '../../../contract/activities.js';
import type { AppContext } from '../../context.js';
import { requireUser } from '../../http/session.js';
import { createLedger } from '../rewards/index.js';
import { createActivitiesRepository } from './activities.repository.js';
import { createActivitiesService, type CanUseAdOverlay } from './activities.service.js';

export interface ActivitiesRouteOptions {
  /** Ad-overlay gating (issue 5/6): pass the subscription check here. Defaults to allowing everyone. */
  canUseAdOverlay?: CanUseAdOverlay;
}

/** `GET /api/activities` (newest first) and `POST /api/activities`. */
export async function activitiesRoutes(app: FastifyInstance, ctx: AppContext, opts: ActivitiesRouteOptions = {}) {
  const service = createActivitiesService({
    repo: createActivitiesRepository(ctx.db),
    ledger: createLedger(ctx.db),
    canUseAdOverlay: opts.canUseAdOverlay,
  });
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get('/api/activities', { schema: { response: { 200: activitiesResponse } } }, async (request) =>
    service.list(requireUser(request).id),
  );

  r.post(
    '/api/activities',
    { schema: { body: createActivityBody, response: { 200: createActivityResponse, 201: createActivityResponse } } },
    async (request, reply) => {
      const user = requireUser(request);
      const key = request.headers['idempotency-key'];
      const result = await service.record(user.id, request.body, typeof key === 'string' ? key : undefined);
      return reply.status(result.recorded ? 201 : 200).send(result);
    },
  );
}
