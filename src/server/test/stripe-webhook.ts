import type { InjectOptions } from 'fastify';
import Stripe from 'stripe';

export interface WebhookEvent {
  type: string;
  /** The event's `data.object` (a subscription, an invoice...). */
  object: unknown;
  id: string;
  /** Seconds since the epoch: the app orders a user's events by it. */
  created: number;
  secret: string;
}

/**
 * A Stripe event as Stripe sends it: its JSON text and its `Stripe-Signature` header, made with
 * the SDK's own test-header helper, so the app's check is the one it runs on real deliveries.
 */
export function signedWebhook(event: WebhookEvent): { payload: string; signature: string } {
  const payload = JSON.stringify({
    id: event.id,
    object: 'event',
    api_version: Stripe.API_VERSION,
    created: event.created,
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type: event.type,
    data: { object: event.object },
  });
  return { payload, signature: Stripe.webhooks.generateTestHeaderString({ payload, secret: event.secret }) };
}

/** The delivery of a signed event to `POST /api/stripe/webhook`, for `app.inject`. */
export function webhookDelivery(event: WebhookEvent): InjectOptions {
  const { payload, signature } = signedWebhook(event);
  return {
    method: 'POST',
    url: '/api/stripe/webhook',
    // Stripe's own header carries a charset.
    headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': signature },
    payload,
  };
}
