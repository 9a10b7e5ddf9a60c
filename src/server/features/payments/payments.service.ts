import type Stripe from 'stripe';
import { isBillingCycle, isTier, priceFor, type BillingCycle, type Tier } from '@domain/plans';
import type { CreateSubscriptionBody, Invoice } from '@contract/subscriptions';
import { badRequest, busy, conflict, unavailable } from '../../http/errors';
import type { SessionUser } from '../../http/session';
import type { EventTx, SubscriptionRow, SubscriptionsRepository } from '../subscriptions/index';
import { isPaymentDue, isSubscriptionActive, PAYMENT_DUE_MESSAGE } from '@domain/plans';
import { LockWaitTimeout, type Database } from '../../db/client';
import { CLOSED_CHECKOUT, LIVE_ON_STRIPE_MESSAGE, type StripeGateway } from './stripe-gateway';

export const PAYMENTS_UNAVAILABLE = 'Payment System Unavailable';

interface Deps {
  repo: SubscriptionsRepository;
  stripe: StripeGateway | null;
  webhookSecret?: string;
  now?: () => Date;
  log?: (msg: string, data?: unknown) => void;
  /** The per-account gate checkouts run behind (`Database.serialise`); none: they just run. */
  serialise?: Database['serialise'];
}

/** What a Stripe event says about one Eyevu subscription. */
interface StripeState {
  userId: string | null;
  customerId: string | null;
  stripeSubscriptionId: string;
  status: string;
  tier: Tier;
  cycle: BillingCycle;
  endDate: Date | null;
  cancelAtPeriodEnd?: boolean;
}

const idOf = (v: string | { id: string } | null | undefined) => (typeof v === 'string' ? v : (v?.id ?? null));

/** Stripe subscription statuses in Eyevu's vocabulary; only 'active' unlocks features. */
function mapStatus(status: Stripe.Subscription.Status): string {
  switch (status) {
    case 'active':
    case 'trialing':
      return 'active';
    case 'past_due':
    case 'unpaid':
      return 'past_due';
    case 'canceled':
    case 'incomplete_expired':
      return 'canceled';
    case 'paused':
      return 'paused';
    default:
      return 'incomplete';
  }
}

function planFromMetadata(meta: Stripe.Metadata | null | undefined): { tier: Tier; cycle: BillingCycle } | null {
  const tier = meta?.tier;
  const cycle = meta?.billing_cycle;
  return isTier(tier) && tier !== 'free' && isBillingCycle(cycle) ? { tier, cycle } : null;
}

function fromSubscription(sub: Stripe.Subscription): StripeState | null {
  const plan = planFromMetadata(sub.metadata);
  if (!plan) return null;
  const periodEnd = Math.max(0, ...sub.items.data.map((i) => i.current_period_end ?? 0));
  const status = mapStatus(sub.status);
  return {
    userId: sub.metadata?.user_id ?? null,
    customerId: idOf(sub.customer),
    stripeSubscriptionId: sub.id,
    status,
    ...plan,
    endDate:
      status === 'canceled'
        ? new Date((sub.ended_at ?? sub.canceled_at ?? periodEnd) * 1000)
        : periodEnd
          ? new Date(periodEnd * 1000)
          : null,
    cancelAtPeriodEnd: sub.cancel_at_period_end,
  };
}

function fromInvoice(invoice: Stripe.Invoice, status: 'active' | 'past_due'): StripeState | null {
  const details = invoice.parent?.subscription_details;
  const subId = idOf(details?.subscription);
  const plan = planFromMetadata(details?.metadata);
  if (!subId || !plan) return null;
  const periodEnd = Math.max(0, ...invoice.lines.data.map((l) => l.period?.end ?? 0));
  return {
    userId: details?.metadata?.user_id ?? null,
    customerId: idOf(invoice.customer),
    stripeSubscriptionId: subId,
    status,
    ...plan,
    endDate: periodEnd ? new Date(periodEnd * 1000) : null,
  };
}

export { PAYMENT_DUE_MESSAGE };

export { LIVE_ON_STRIPE_MESSAGE };

/** A checkout that waited CHECKOUT_WAIT_MS for another of the same account. */
export const CHECKOUT_BUSY_MESSAGE =
  'A checkout is already being opened for your account. Please try again in a moment.';

/** A checkout that waited CHECKOUT_WAIT_MS for the process's room for checkouts (many at once). */
export const CHECKOUTS_BUSY_MESSAGE = 'Many checkouts are being opened right now. Please try again in a moment.';

/**
 * How long a checkout waits for another of the same account (a few Stripe calls, about a second or
 * two; far longer only when Stripe is slow, and then a clear refusal beats a hanging form).
 */
export const CHECKOUT_WAIT_MS = 10_000;

/** Retry-After of a checkout that waited CHECKOUT_WAIT_MS: the other's few Stripe calls are about done. */
export const CHECKOUT_RETRY_AFTER_SECONDS = 5;

export function createPaymentsService({ repo, stripe, webhookSecret, now = () => new Date(), log, serialise }: Deps) {
  /**
   * Applies one verified event's state. Out-of-order delivery: an event older than the newest one
   * applied to this subscription changes nothing, and a cancelled Stripe subscription never comes
   * back (Stripe cannot reactivate it). A Stripe event for another subscription only replaces the
   * stored one (e.g. a trial) when it makes the user active.
   */
  async function applyState(
    tx: EventTx,
    state: StripeState,
    eventCreated: Date,
    kind: 'invoice_failed' | 'deleted' | 'other',
  ) {
    let userId = state.userId;
    // Our metadata names the user; an event from a subscription made elsewhere falls back to the customer.
    if (!userId || !/^[0-9a-f-]{36}$/i.test(userId) || !(await tx.userExists(userId))) {
      userId = state.customerId ? await tx.userIdByCustomer(state.customerId) : null;
    }
    if (!userId) {
      log?.('stripe event for an unknown user', { subscription: state.stripeSubscriptionId });
      return;
    }
    const row: SubscriptionRow | undefined = await tx.findByUserForUpdate(userId);
    const same = row?.stripeSubscriptionId === state.stripeSubscriptionId;
    if (row && same) {
      if (row.lastEventAt && eventCreated < row.lastEventAt) return;
      if (row.status === 'canceled') return;
    } else {
      // A failed payment on a subscription we do not hold changes nothing.
      if (kind === 'invoice_failed') return;
      // Older than the newest event applied to the stored one: an earlier subscription's event
      // delivered late (Stripe retries for days) would replace the one bought after it, which then
      // showed the old plan and could not be cancelled (Cancel acted on the ended one).
      if (row?.lastEventAt && eventCreated < row.lastEventAt) return;
      // Only activation replaces what is stored, except that a deletion is recorded when nothing
      // active is held, so an older event for that subscription delivered later cannot revive it.
      const holdsActive = !!row && isSubscriptionActive(row, now());
      if (state.status !== 'active' && (holdsActive || kind !== 'deleted')) return;
    }
    await tx.upsert({
      userId,
      status: state.status,
      tier: state.tier,
      billingCycle: state.cycle,
      price: priceFor(state.tier, state.cycle),
      // past_due keeps the last paid end; a failed invoice does not extend anything.
      endDate: kind === 'invoice_failed' ? (row?.endDate ?? null) : (state.endDate ?? row?.endDate ?? null),
      source: 'stripe',
      stripeSubscriptionId: state.stripeSubscriptionId,
      cancelAtPeriodEnd: state.cancelAtPeriodEnd ?? (same ? row!.cancelAtPeriodEnd : false),
      lastEventAt: eventCreated,
      updatedAt: now(),
    });
  }

  /** `createSubscription` behind the account's gate; `concurrent`: it waited for another checkout. */
  async function openCheckout(
    stripe: StripeGateway,
    user: SessionUser,
    body: CreateSubscriptionBody,
    concurrent: boolean,
  ) {
    const row = await repo.findByUser(user.id);
    if (row?.source === 'stripe' && isSubscriptionActive(row, now())) {
      throw conflict('You already have an active subscription. Cancel it on the billing page before switching plans.');
    }
    if (isPaymentDue(row, now())) throw conflict(PAYMENT_DUE_MESSAGE);
    let customerId = await repo.customerIdOf(user.id);
    // Stripe's own word as well: a subscription the stored row no longer names (replaced by a
    // later event) would otherwise be billed beside the new one.
    if (customerId && (await stripe.hasLiveSubscription(customerId))) throw conflict(LIVE_ON_STRIPE_MESSAGE);
    if (!customerId) {
      const created = await stripe.createCustomer({
        id: user.id,
        email: user.email,
        name: `${user.firstName} ${user.lastName}`.trim(),
      });
      customerId = await repo.linkCustomer(user.id, created);
    }
    const result = await stripe.createOrReuseSubscription({
      customerId,
      userId: user.id,
      tier: body.tier,
      cycle: body.billingCycle,
      now: now(),
      concurrent,
    });
    return { clientSecret: result.clientSecret, amount: result.amount, subscriptionId: result.subscriptionId };
  }

  return {
    /**
     * {tier, billingCycle} -> {clientSecret, amount}. The amount comes from Stripe's invoice,
     * priced from the catalogue; no client-sent price is used.
     */
    async createSubscription(user: SessionUser, body: CreateSubscriptionBody) {
      if (!stripe) throw unavailable(PAYMENTS_UNAVAILABLE);
      if (body.tier === 'free') throw badRequest('The free plan needs no payment.');
      if (!serialise) return openCheckout(stripe, user, body, false);
      // One checkout of an account at a time, in every process: two asked in the same moment (two
      // tabs restored) each read Stripe before the other had made its checkout, and the later
      // reader closed a checkout the other had already answered, whose form then could not pay.
      try {
        return await serialise(`checkout:${user.id}`, (contended) => openCheckout(stripe, user, body, contended), {
          waitMs: CHECKOUT_WAIT_MS,
        });
      } catch (err) {
        // A wait that ran out is a moment's condition, not a conflict with what is stored (409
        // stays for those: a plan already running, a checkout superseded).
        if (err instanceof LockWaitTimeout) {
          throw busy(
            err.waitedFor === 'name' ? CHECKOUT_BUSY_MESSAGE : CHECKOUTS_BUSY_MESSAGE,
            CHECKOUT_RETRY_AFTER_SECONDS,
          );
        }
        throw err;
      }
    },
    /** Verifies, deduplicates and applies one webhook delivery. */
    async handleWebhook(rawBody: Buffer, signature: string | undefined) {
      if (!stripe || !webhookSecret) throw unavailable(PAYMENTS_UNAVAILABLE);
      if (!signature) throw badRequest('Missing Stripe-Signature header.');
      let event: Stripe.Event;
      try {
        event = stripe.constructEvent(rawBody, signature, webhookSecret);
      } catch {
        throw badRequest('Invalid webhook signature.');
      }
      const created = new Date(event.created * 1000);
      const outcome = await repo.processEventOnce({ id: event.id, type: event.type }, async (tx) => {
        switch (event.type) {
          case 'invoice.paid': {
            const state = fromInvoice(event.data.object, 'active');
            if (state) await applyState(tx, state, created, 'other');
            break;
          }
          case 'invoice.payment_failed': {
            const state = fromInvoice(event.data.object, 'past_due');
            if (state) await applyState(tx, state, created, 'invoice_failed');
            break;
          }
          case 'customer.subscription.created':
          case 'customer.subscription.updated':
          case 'customer.subscription.deleted': {
            const sub = event.data.object;
            // Never paid (its invoice voided before it was cancelled): nothing to record.
            if (
              event.type === 'customer.subscription.deleted' &&
              sub.cancellation_details?.comment === CLOSED_CHECKOUT
            ) {
              break;
            }
            const state = fromSubscription(
              event.type === 'customer.subscription.deleted' ? { ...sub, status: 'canceled' } : sub,
            );
            if (state) {
              await applyState(
                tx,
                state,
                created,
                event.type === 'customer.subscription.deleted' ? 'deleted' : 'other',
              );
            }
            break;
          }
          default:
            break;
        }
      });
      return { received: true as const, duplicate: outcome === 'duplicate' };
    },

    /** Beyond the spec: the user's Stripe invoices, newest first; empty without Stripe. */
    async invoices(userId: string): Promise<Invoice[]> {
      if (!stripe) return [];
      const customerId = await repo.customerIdOf(userId);
      if (!customerId) return [];
      const list = await stripe.listInvoices(customerId);
      return list
        .filter((i) => i.status !== 'draft')
        .map((i) => ({
          id: i.id ?? '',
          number: i.number ?? null,
          amount: i.status === 'paid' ? i.amount_paid : i.amount_due,
          currency: i.currency,
          status: i.status ?? null,
          created: new Date(i.created * 1000).toISOString(),
          hostedInvoiceUrl: i.hosted_invoice_url ?? null,
        }));
    },
  };
}
export type PaymentsService = ReturnType<typeof createPaymentsService>;
