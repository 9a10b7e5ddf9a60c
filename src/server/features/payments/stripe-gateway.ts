import Stripe from 'stripe';
import { planFor, priceFor, type BillingCycle, type Tier } from '../../../domain/plans.js';
import type { Config } from '../../config.js';

/**
 * Everything Eyevu asks of Stripe, in one place. Created only when STRIPE_SECRET_KEY is set;
 * `config.stripeApi` (tests only) points the SDK at a local test double.
 */
export function createStripeGateway(config: Config) {
  const key = config.stripe.secretKey;
  if (!key) return null;
  const stripe = new Stripe(key, {
    maxNetworkRetries: 2,
    timeout: 20_000,
    telemetry: false,
    appInfo: { name: 'Eyevu' },
    ...(config.stripeApi ?? {}),
  });
  const priceIds = new Map<string, string>();

  /** The Stripe price for a catalogue entry, found by lookup key or created from the catalogue. */
  async function priceId(tier: Tier, cycle: BillingCycle): Promise<string> {
    const lookupKey = `eyevu_${tier}_${cycle}`;
    const cached = priceIds.get(lookupKey);
    if (cached) return cached;
    const amount = priceFor(tier, cycle);
    const interval = cycle === 'yearly' ? 'year' : 'month';
    const found = await stripe.prices.list({ lookup_keys: [lookupKey], active: true, limit: 1 });
    let price = found.data.find(
      (p) => p.unit_amount === amount && p.currency === 'usd' && p.recurring?.interval === interval,
    );
    if (!price) {
      // Missing, or the catalogue changed: a new price takes over the lookup key.
      price = await stripe.prices.create(
        {
          currency: 'usd',
          unit_amount: amount,
          recurring: { interval },
          lookup_key: lookupKey,
          transfer_lookup_key: true,
          product_data: { name: `Eyevu ${planFor(tier).name}` },
          metadata: { tier, billing_cycle: cycle },
        },
        { idempotencyKey: `eyevu-price-${lookupKey}-${amount}` },
      );
    }
    priceIds.set(lookupKey, price.id);
    return price.id;
  }

  return {
    priceId,

    async createCustomer(user: { id: string; email: string; name: string }): Promise<string> {
      const customer = await stripe.customers.create(
        { email: user.email, name: user.name, metadata: { user_id: user.id } },
        { idempotencyKey: `eyevu-customer-${user.id}` },
      );
      return customer.id;
    },

    /**
     * An incomplete subscription awaiting its first payment for this price, or a new one. Reusing
     * the open one makes a retried checkout (reload, double submit) ask for one payment, not two;
     * the idempotency key covers two requests racing before either is listed.
     */
    async createOrReuseSubscription(input: {
      customerId: string;
      userId: string;
      tier: Tier;
      cycle: BillingCycle;
      now: Date;
    }): Promise<{ subscriptionId: string; clientSecret: string; amount: number }> {
      const price = await priceId(input.tier, input.cycle);
      const open = await stripe.subscriptions.list({
        customer: input.customerId,
        price,
        status: 'incomplete',
        limit: 1,
        expand: ['data.latest_invoice.confirmation_secret'],
      });
      let sub = open.data[0];
      if (!sub) {
        const window = Math.floor(input.now.getTime() / (10 * 60 * 1000));
        sub = await stripe.subscriptions.create(
          {
            customer: input.customerId,
            items: [{ price }],
            payment_behavior: 'default_incomplete',
            payment_settings: { save_default_payment_method: 'on_subscription' },
            metadata: { user_id: input.userId, tier: input.tier, billing_cycle: input.cycle },
            expand: ['latest_invoice.confirmation_secret'],
          },
          { idempotencyKey: `eyevu-subscription-${input.userId}-${price}-${window}` },
        );
      }
      const invoice = sub.latest_invoice;
      const secret = invoice && typeof invoice !== 'string' ? invoice.confirmation_secret?.client_secret : undefined;
      if (!secret) throw new Error(`Stripe subscription ${sub.id} has no confirmation secret`);
      const amount = typeof invoice === 'object' && invoice ? invoice.amount_due : priceFor(input.tier, input.cycle);
      return { subscriptionId: sub.id, clientSecret: secret, amount };
    },

    /** Whether the customer already pays for a live subscription (active, trialing or past due). */
    async hasLiveSubscription(customerId: string): Promise<boolean> {
      const list = await stripe.subscriptions.list({ customer: customerId, status: 'all', limit: 10 });
      return list.data.some((s) => ['active', 'trialing', 'past_due'].includes(s.status));
    },

    async cancelAtPeriodEnd(subscriptionId: string): Promise<void> {
      await stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: true });
    },

    async listInvoices(customerId: string) {
      const list = await stripe.invoices.list({ customer: customerId, limit: 24 });
      return list.data;
    },

    /** Verifies the signature over the exact bytes received; throws on a bad or stale signature. */
    constructEvent(rawBody: Buffer, signature: string, secret: string): Stripe.Event {
      return stripe.webhooks.constructEvent(rawBody, signature, secret);
    },
  };
}
export type StripeGateway = NonNullable<ReturnType<typeof createStripeGateway>>;
