import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { activateBody, activateResponse, appStatus } from '@contract/app-status';
import type { AppContext } from '../../context';
import { userOf } from '../../http/session';
import { createRewardsService } from '../rewards/index';
import { createAppStatusRepository } from './app-status.repository';
import { createAppStatusService } from './app-status.service';

/** `GET /api/app-status`, `POST /api/app-status/{activate,deactivate,heartbeat}`. */
export async function appStatusRoutes(app: FastifyInstance, ctx: AppContext) {
  const service = createAppStatusService({
    repo: createAppStatusRepository(ctx.db),
    rewards: createRewardsService({ ledger: ctx.ledger, now: ctx.now }),
    now: ctx.now,
  });
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get('/api/app-status', { schema: { response: { 200: appStatus } } }, async (request) =>
    service.get(userOf(request).id),
  );
  r.post(
    '/api/app-status/activate',
    { schema: { body: activateBody, response: { 200: activateResponse } } },
    async (request) => service.activate(userOf(request).id),
  );
  r.post('/api/app-status/deactivate', { schema: { response: { 200: appStatus } } }, async (request) =>
    service.deactivate(userOf(request).id),
  );
  r.post('/api/app-status/heartbeat', { schema: { response: { 200: appStatus } } }, async (request) =>
    service.heartbeat(userOf(request).id),
  );
}
