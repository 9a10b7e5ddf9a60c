import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  createSubscriptionBody,
  createSubscriptionResponse,
  invoicesResponse,
  publicConfigResponse,
  webhookResponse,
} from '@contract/subscriptions';
import type { AppContext } from '../../context';
import { userOf } from '../../http/session';
import { createSubscriptionsRepository } from '../subscriptions/index';
import { createPaymentsService } from './payments.service';
import type { StripeGateway } from './stripe-gateway';

export interface PaymentsRouteOptions {
  /** The Stripe gateway (payments/stripe-gateway.ts), built once by app.ts; null without STRIPE_SECRET_KEY. */
  stripe: StripeGateway | null;
}

export async function paymentsRoutes(app: FastifyInstance, ctx: AppContext, { stripe }: PaymentsRouteOptions) {
  const service = createPaymentsService({
    repo: createSubscriptionsRepository(ctx.db),
    stripe,
    webhookSecret: ctx.config.stripe.webhookSecret,
    now: ctx.now,
    log: (msg, data) => app.log.warn({ data }, msg),
    // Looked up at each call: tests watch the gate on the database the app was given.
    serialise: (name, work, opts) => ctx.database.serialise(name, work, opts),
  });
  const r = app.withTypeProvider<ZodTypeProvider>();
  const paymentsConfigured = !!stripe && !!ctx.config.stripe.publicKey;

  /** The client reads the publishable key at run time, so one build serves every deployment. */
  r.get('/api/config', { schema: { response: { 200: publicConfigResponse } } }, async () => ({
    stripePublicKey: paymentsConfigured ? ctx.config.stripe.publicKey! : null,
  }));

  r.post(
    '/api/create-subscription',
    { schema: { body: createSubscriptionBody, response: { 200: createSubscriptionResponse } } },
    async (request) => service.createSubscription(userOf(request), request.body),
  );

  r.get('/api/billing/invoices', { schema: { response: { 200: invoicesResponse } } }, async (request) => ({
    invoices: await service.invoices(userOf(request).id),
  }));

  // The signature covers the exact bytes Stripe sent, so this route alone keeps the body raw.
  await app.register(async (scope) => {
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: 512 * 1024 }, (_req, body, done) =>
      done(null, body),
    );
    scope
      .withTypeProvider<ZodTypeProvider>()
      .post('/api/stripe/webhook', { schema: { response: { 200: webhookResponse } } }, async (request) => {
        const signature = request.headers['stripe-signature'];
        const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.from('');
        return service.handleWebhook(raw, typeof signature === 'string' ? signature : undefined);
      });
  });
}
