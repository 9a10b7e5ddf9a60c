import {
  isPaymentDue,
  isSubscriptionActive,
  PAYMENT_DUE_MESSAGE,
  priceAfterTrial,
  priceFor,
  trialEndDate,
  TRIAL_TIER,
  upgradeModalPlan,
  type BillingCycle,
  type Tier,
} from '@domain/plans';
import type { LegacySubscriptionBody, Subscription, UpgradeBody } from '@contract/subscriptions';
import { badRequest, conflict } from '../../http/errors';
import { toSubscriptionView } from './subscription-reader';
import type { SubscriptionsRepository } from './subscriptions.repository';

export const TRIAL_USED = 'The free trial has already been used on this account. Choose a plan on the pricing page.';
export const ALREADY_ACTIVE = 'You already have an active subscription.';
export const PRICE_MISMATCH = 'The price does not match the selected plan. Please reload the pricing page.';

/** What cancelling needs of the payment provider (the payments feature's Stripe gateway). */
export interface SubscriptionCanceller {
  cancelAtPeriodEnd(stripeSubscriptionId: string): Promise<void>;
  /** Ends it on Stripe now: no more charges or retries (one cancelled already counts as ended). */
  cancelNow(stripeSubscriptionId: string): Promise<void>;
  /** Its status on Stripe now ('missing' when Stripe has none by that id). */
  statusOf(stripeSubscriptionId: string): Promise<string>;
}

interface Deps {
  repo: SubscriptionsRepository;
  /** Null when payments are not configured. */
  stripe: SubscriptionCanceller | null;
  now?: () => Date;
}

export function createSubscriptionsService({ repo, stripe, now = () => new Date() }: Deps) {
  async function view(userId: string): Promise<Subscription> {
    const row = await repo.findByUser(userId);
    return { ...toSubscriptionView(row, now()), trialAvailable: !row };
  }

  return {
    view,

    /**
     * The upgrade modal's 'Start Free Trial' (older payload {plan, status, endDate, price}): the
     * trial tier for TRIAL_DAYS on the chosen cycle, ending at a time the server decides (the
     * client's endDate is ignored; a price other than the modal's is refused). The row stores the
     * price checkout will charge to keep the plan, since nothing renews a trial. Once per account
     * ever: any earlier row (a trial, cancelled or expired, or a Stripe subscription) means used,
     * and rows are never deleted, so it cannot be restarted.
     */
    async startTrial(userId: string, body: LegacySubscriptionBody): Promise<Subscription> {
      if (body.price !== undefined && body.price !== upgradeModalPlan(body.plan).price) {
        throw badRequest(PRICE_MISMATCH);
      }
      const at = now();
      const row = await repo.insertIfNone({
        userId,
        status: 'active',
        tier: TRIAL_TIER,
        billingCycle: body.plan,
        price: priceAfterTrial(body.plan),
        endDate: trialEndDate(at),
        source: 'trial',
        updatedAt: at,
      });
      if (!row) {
        const existing = await repo.findByUser(userId);
        if (existing && isSubscriptionActive(existing, at)) throw conflict(ALREADY_ACTIVE);
        throw conflict(TRIAL_USED);
      }
      return view(userId);
    },

    /**
     * Checks a plan change against the catalogue. Paid plans are bought through checkout (money
     * moves only through verified Stripe events), so a valid request answers where to pay.
     */
    async upgrade(userId: string, body: UpgradeBody) {
      if (body.tier === 'free') throw badRequest('The free plan needs no upgrade.');
      if (body.price !== priceFor(body.tier, body.billingCycle)) throw badRequest(PRICE_MISMATCH);
      const row = await repo.findByUser(userId);
      if (row?.source === 'stripe' && isSubscriptionActive(row, now())) {
        throw conflict(
          'You already have an active subscription. Cancel it on the billing page before switching plans.',
        );
      }
      // Checkout refuses it too; said here, the pricing page's toast gives the reason before the
      // user is sent to a checkout that would only send them back.
      if (isPaymentDue(row, now())) throw conflict(PAYMENT_DUE_MESSAGE);
      return {
        checkoutUrl: checkoutUrl(body.tier, body.billingCycle),
        tier: body.tier,
        billingCycle: body.billingCycle,
        price: body.price,
      };
    },

    /**
     * Beyond the spec: a trial ends at once; a Stripe subscription is cancelled at the end of the
     * paid period (it stays active until then; Stripe's deleted event ends it).
     */
    async cancel(userId: string): Promise<Subscription> {
      const at = now();
      const row = await repo.findByUser(userId);
      const due = isPaymentDue(row, at);
      if (!row || (!due && !isSubscriptionActive(row, at))) {
        throw conflict('You have no active subscription to cancel.');
      }
      if (row.source === 'stripe') {
        if (!row.stripeSubscriptionId || !stripe) {
          throw conflict('This subscription cannot be cancelled right now. Please try again later.');
        }
        if (due) {
          // The stored row follows Stripe by a webhook's delay, so Stripe is asked first: one it
          // has renewed meanwhile is paid for, and ends at its period's end as usual; one it
          // still retries (or holds paused) unlocks nothing and is ended now, rather than
          // retried until then; one Stripe has ended already is only marked so here.
          const live = await stripe.statusOf(row.stripeSubscriptionId);
          if (live === 'active' || live === 'trialing') {
            await stripe.cancelAtPeriodEnd(row.stripeSubscriptionId);
            await repo.markCancelAtPeriodEnd(userId, row.stripeSubscriptionId, at);
          } else {
            if (live !== 'canceled' && live !== 'missing' && live !== 'incomplete_expired') {
              await stripe.cancelNow(row.stripeSubscriptionId);
            }
            await repo.markStripeCanceled(userId, row.stripeSubscriptionId, at);
          }
        } else if (!row.cancelAtPeriodEnd) {
          await stripe.cancelAtPeriodEnd(row.stripeSubscriptionId);
          await repo.markCancelAtPeriodEnd(userId, row.stripeSubscriptionId, at);
        }
      } else {
        await repo.endNow(userId, at);
      }
      return view(userId);
    },
  };
}

export function checkoutUrl(tier: Tier, cycle: BillingCycle) {
  return `/checkout?tier=${encodeURIComponent(tier)}&billing=${encodeURIComponent(cycle)}`;
}
export type SubscriptionsService = ReturnType<typeof createSubscriptionsService>;
