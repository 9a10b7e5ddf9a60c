import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { legacySubscriptionBody, subscriptionResponse, upgradeBody, upgradeResponse } from '@contract/subscriptions';
import type { AppContext } from '../../context';
import { userOf } from '../../http/session';
import { createSubscriptionsRepository } from './subscriptions.repository';
import { createSubscriptionsService, type SubscriptionCanceller } from './subscriptions.service';

export interface SubscriptionsRouteOptions {
  /** The payment provider, to cancel a Stripe subscription; null when payments are not configured. */
  stripe: SubscriptionCanceller | null;
}

export async function subscriptionsRoutes(app: FastifyInstance, ctx: AppContext, opts: SubscriptionsRouteOptions) {
  const service = createSubscriptionsService({
    repo: createSubscriptionsRepository(ctx.db),
    stripe: opts.stripe,
    now: ctx.now,
  });
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get('/api/subscription', { schema: { response: { 200: subscriptionResponse } } }, async (request) =>
    service.view(userOf(request).id),
  );

  r.post(
    '/api/subscription',
    { schema: { body: legacySubscriptionBody, response: { 201: subscriptionResponse } } },
    async (request, reply) => reply.status(201).send(await service.startTrial(userOf(request).id, request.body)),
  );

  r.post(
    '/api/subscription/upgrade',
    { schema: { body: upgradeBody, response: { 200: upgradeResponse } } },
    async (request) => service.upgrade(userOf(request).id, request.body),
  );

  r.post('/api/subscription/cancel', { schema: { response: { 200: subscriptionResponse } } }, async (request) =>
    service.cancel(userOf(request).id),
  );
}
