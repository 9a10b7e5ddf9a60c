import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { activitiesResponse, createActivityBody, createActivityResponse } from '@contract/activities';
import { adBreak, startAdBreakBody } from '@contract/ad-breaks';
import type { AppContext } from '../../context';
import { userOf } from '../../http/session';
import { createActivitiesRepository } from './activities.repository';
import { createActivitiesService, type CanUseAdOverlay } from './activities.service';
import { createAdBreaksRepository } from './ad-breaks.repository';
import { createAdBreaksService } from './ad-breaks.service';

export interface ActivitiesRouteOptions {
  /** Ad-overlay gating: app.ts passes the subscription check. Defaults to allowing everyone. */
  canUseAdOverlay?: CanUseAdOverlay;
}

/** `POST /api/ad-breaks` (start one), `GET /api/activities` (newest first) and `POST /api/activities` (record one). */
export async function activitiesRoutes(app: FastifyInstance, ctx: AppContext, opts: ActivitiesRouteOptions = {}) {
  const adBreaks = createAdBreaksService({ repo: createAdBreaksRepository(ctx.db), now: ctx.now });
  const service = createActivitiesService({
    repo: createActivitiesRepository(ctx.db),
    ledger: ctx.ledger,
    adBreaks,
    canUseAdOverlay: opts.canUseAdOverlay,
  });
  const r = app.withTypeProvider<ZodTypeProvider>();

  // Open to every signed-in user: free users play mini-games during ad breaks.
  r.post('/api/ad-breaks', { schema: { body: startAdBreakBody, response: { 201: adBreak } } }, async (request, reply) =>
    reply.status(201).send(await adBreaks.start(userOf(request).id, request.body.app)),
  );

  r.get('/api/activities', { schema: { response: { 200: activitiesResponse } } }, async (request) =>
    service.list(userOf(request).id),
  );

  r.post(
    '/api/activities',
    { schema: { body: createActivityBody, response: { 200: createActivityResponse, 201: createActivityResponse } } },
    async (request, reply) => {
      const user = userOf(request);
      const key = request.headers['idempotency-key'];
      const result = await service.record(user.id, request.body, typeof key === 'string' ? key : undefined);
      return reply.status(result.recorded ? 201 : 200).send(result);
    },
  );
}
