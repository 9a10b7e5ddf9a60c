import Stripe from 'stripe';
import { planFor, priceFor, type BillingCycle, type Tier } from '@domain/plans';
import type { Config } from '../../config';
import { AppError } from '../../http/errors';

export const PAYMENT_PROVIDER_ERROR = 'Payment provider error. Please try again.';

export type GatewayLog = (msg: string, detail: Record<string, unknown>) => void;

/**
 * Stripe's error text is written for the merchant (ids, parameter names, account hints), so it is
 * logged here and the client gets one generic message: 503 when Stripe could not be reached or
 * asked us to slow down (worth retrying soon), 502 for anything else it refused or failed.
 */
function providerFailure(op: string, err: unknown, log: GatewayLog | undefined): AppError {
  const stripeErr = err instanceof Stripe.errors.StripeError ? err : undefined;
  log?.('payment provider call failed', {
    op,
    type: stripeErr?.type,
    code: stripeErr?.code,
    statusCode: stripeErr?.statusCode,
    requestId: stripeErr?.requestId,
    message: err instanceof Error ? err.message : String(err),
  });
  const retryable =
    err instanceof Stripe.errors.StripeConnectionError ||
    err instanceof Stripe.errors.StripeRateLimitError ||
    (stripeErr?.statusCode ?? 0) >= 500;
  return new AppError(retryable ? 503 : 502, PAYMENT_PROVIDER_ERROR, 'payment_provider');
}

/**
 * The cancellation comment of a checkout closed unpaid because another plan's checkout was opened:
 * its deletion event records nothing (it held nothing, and would spend the account's free trial).
 */
export const CLOSED_CHECKOUT = 'Eyevu: an unpaid checkout replaced by a checkout for another plan';

/** Refusal of a checkout for a plan while another plan's checkout was being opened for the account. */
export const SUPERSEDED_CHECKOUT =
  'Another checkout was opened for your account at the same moment. Please choose your plan again.';

/** Checkout while Stripe lists a live subscription the stored row does not name yet (a webhook on its way). */
export const LIVE_ON_STRIPE_MESSAGE =
  'Your account still has a subscription with our payment provider that is not shown here yet. Please try again in a few minutes.';

/** Stripe statuses of a subscription Stripe charges or may still charge. */
const LIVE_STATUSES = new Set(['active', 'trialing', 'past_due', 'unpaid', 'paused']);

/** Stripe's answer for an id it has no object for (also a cancel of one cancelled already). */
const isMissing = (err: unknown) =>
  err instanceof Stripe.errors.StripeError && (err.code === 'resource_missing' || err.statusCode === 404);

/**
 * Everything Eyevu asks of Stripe, in one place. Created only when STRIPE_SECRET_KEY is set;
 * `config.stripeApi` (tests only) points the SDK at a local test double. Every API call goes
 * through `guard`, so no Stripe error reaches a route unmapped.
 */
export function createStripeGateway(config: Config, log?: GatewayLog) {
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

  async function guard<T>(op: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      throw providerFailure(op, err, log);
    }
  }

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

  /**
   * Ends an open checkout: first its invoice, which its payment form would still pay (cancelling a
   * subscription only stops Stripe's own collection), then the subscription. Voiding first is what
   * makes it safe: Stripe voids only an unpaid invoice, so a form paying it at this very moment
   * wins, and that subscription is kept (a plan paid for is never cancelled here). Best effort: a
   * failure is logged and the new checkout goes on, rather than leaving the user unable to buy.
   */
  async function closeCheckout(sub: Stripe.Subscription): Promise<'closed' | 'paid'> {
    const invoice = sub.latest_invoice;
    const invoiceId = typeof invoice === 'string' ? invoice : invoice?.id;
    try {
      if (invoiceId) await stripe.invoices.voidInvoice(invoiceId);
      await stripe.subscriptions.cancel(sub.id, { cancellation_details: { comment: CLOSED_CHECKOUT } });
    } catch (err) {
      log?.('could not close an open checkout', {
        subscription: sub.id,
        message: err instanceof Error ? err.message : String(err),
      });
      if (await isLive(sub.id)) return 'paid';
    }
    return 'closed';
  }

  /** Whether Stripe now charges (or may charge) this subscription; false when it cannot say. */
  async function isLive(subscriptionId: string): Promise<boolean> {
    try {
      return LIVE_STATUSES.has((await stripe.subscriptions.retrieve(subscriptionId)).status);
    } catch {
      return false;
    }
  }

  return {
    priceId: (tier: Tier, cycle: BillingCycle) => guard('price', () => priceId(tier, cycle)),

    async createCustomer(user: { id: string; email: string; name: string }): Promise<string> {
      return guard('create customer', async () => {
        const customer = await stripe.customers.create(
          { email: user.email, name: user.name, metadata: { user_id: user.id } },
          { idempotencyKey: `eyevu-customer-${user.id}` },
        );
        return customer.id;
      });
    },

    /**
     * An incomplete subscription awaiting its first payment for this price, or a new one. Reusing
     * the open one makes a retried checkout (reload, double submit) ask for one payment, not two;
     * the idempotency key covers two requests racing before either is listed.
     *
     * The customer's other open checkouts (another plan, e.g. in a second tab) are closed: each
     * keeps a payable form for a day, and paying two of them started two subscriptions billing one
     * customer, the earlier one replaced in the app by the later one's events and never shown or
     * cancellable again. The checkout asked for last is the one that can be paid, except that one
     * asked for while another was being opened (`concurrent`, the caller's per-account lock was
     * held) keeps what that one made: a checkout just answered is not closed under its form.
     * Callers run one at a time per customer (payments.service.ts).
     */
    async createOrReuseSubscription(input: {
      customerId: string;
      userId: string;
      tier: Tier;
      cycle: BillingCycle;
      now: Date;
      concurrent: boolean;
    }): Promise<{ subscriptionId: string; clientSecret: string; amount: number }> {
      const result = await guard('create subscription', async () => {
        const price = await priceId(input.tier, input.cycle);
        // One read gives both the open checkouts and the newest subscription. Read apart, a
        // concurrent request for this plan (a double submit) could create its checkout between
        // the two: this one then found no open checkout yet, and a key naming that new checkout
        // as the newest, so it made a second payable one instead of replaying the first.
        const listed = await stripe.subscriptions.list({
          customer: input.customerId,
          status: 'all',
          limit: 100,
          expand: ['data.latest_invoice.confirmation_secret'],
        });
        const open = listed.data.filter((s) => s.status === 'incomplete');
        let sub = open.find((s) => s.items.data.some((item) => item.price.id === price));
        if (input.concurrent && open.some((s) => s !== sub)) return { superseded: true as const };
        if (!sub) {
          // The customer's newest subscription is part of the key: once a checkout has been
          // opened since (and this plan's closed by it), a new one is made, where the same key
          // would replay the closed one, whose form can no longer pay, for the rest of the window.
          const newest = listed.data[0];
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
            { idempotencyKey: `eyevu-subscription-${input.userId}-${price}-${window}-${newest?.id ?? 'none'}` },
          );
        }
        const kept = sub.id;
        let paidMeanwhile = false;
        for (const other of open) {
          if (other.id !== kept && (await closeCheckout(other)) === 'paid') paidMeanwhile = true;
        }
        // Another checkout's form paid between the list and its closing (a first tab): that plan
        // is bought, and this checkout, left payable, would bill a second plan beside it.
        if (paidMeanwhile) {
          await closeCheckout(sub);
          return { live: true as const };
        }
        const invoice = sub.latest_invoice;
        const secret = invoice && typeof invoice !== 'string' ? invoice.confirmation_secret?.client_secret : undefined;
        if (!secret) throw new Error(`Stripe subscription ${sub.id} has no confirmation secret`);
        const amount = typeof invoice === 'object' && invoice ? invoice.amount_due : priceFor(input.tier, input.cycle);
        return { subscriptionId: sub.id, clientSecret: secret, amount };
      });
      if ('superseded' in result) throw new AppError(409, SUPERSEDED_CHECKOUT, 'conflict');
      if ('live' in result) throw new AppError(409, LIVE_ON_STRIPE_MESSAGE, 'conflict');
      return result;
    },

    /**
     * Whether Stripe holds a subscription of the customer that it charges or may charge (active,
     * trialing, past due, unpaid, paused), over every page of the list: abandoned checkouts'
     * incomplete ones can come first.
     */
    async hasLiveSubscription(customerId: string): Promise<boolean> {
      return guard('list subscriptions', async () => {
        for await (const s of stripe.subscriptions.list({ customer: customerId, status: 'all', limit: 100 })) {
          if (LIVE_STATUSES.has(s.status)) return true;
        }
        return false;
      });
    },

    /** The subscription's status on Stripe now; 'missing' when Stripe has none by that id. */
    async statusOf(subscriptionId: string): Promise<string> {
      return guard('read subscription', async () => {
        try {
          return (await stripe.subscriptions.retrieve(subscriptionId)).status;
        } catch (err) {
          if (isMissing(err)) return 'missing';
          throw err;
        }
      });
    },

    /** Ends it on Stripe now; one Stripe no longer has (already cancelled) is ended already. */
    async cancelNow(subscriptionId: string): Promise<void> {
      await guard('cancel subscription', async () => {
        try {
          await stripe.subscriptions.cancel(subscriptionId);
        } catch (err) {
          if (!isMissing(err)) throw err;
        }
      });
    },

    async cancelAtPeriodEnd(subscriptionId: string): Promise<void> {
      await guard('cancel subscription', () =>
        stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: true }),
      );
    },

    async listInvoices(customerId: string) {
      return guard('list invoices', async () => {
        const list = await stripe.invoices.list({ customer: customerId, limit: 24 });
        return list.data;
      });
    },

    /** Verifies the signature over the exact bytes received; throws on a bad or stale signature. */
    constructEvent(rawBody: Buffer, signature: string, secret: string): Stripe.Event {
      return stripe.webhooks.constructEvent(rawBody, signature, secret);
    },
  };
}
export type StripeGateway = NonNullable<ReturnType<typeof createStripeGateway>>;
