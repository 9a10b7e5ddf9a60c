import {
  isSubscriptionActive,
  priceFor,
  upgradeModalEndDate,
  upgradeModalPlan,
  type BillingCycle,
  type Tier,
} from '../../../domain/plans.js';
import type { LegacySubscriptionBody, Subscription, UpgradeBody } from '../../../contract/subscriptions.js';
import { badRequest, conflict } from '../../http/errors.js';
import type { StripeGateway } from '../payments/stripe-gateway.js';
import { toSubscriptionView } from './subscription-reader.js';
import type { SubscriptionsRepository } from './subscriptions.repository.js';

export const TRIAL_USED = 'The free trial has already been used on this account. Choose a plan on the pricing page.';
export const PRICE_MISMATCH = 'The price does not match the selected plan. Please reload the pricing page.';

interface Deps {
  repo: SubscriptionsRepository;
  stripe: StripeGateway | null;
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
     * The upgrade modal's 'Start Free Trial' (older payload {plan, status, endDate, price}). Premium
     * for the plan's 30 or 365 days; the server computes the end date and ignores the client's;
     * a price other than the modal's is refused. Offered once per account (no earlier
     * subscription row of any kind), so it cannot be renewed forever.
     */
    async startTrial(userId: string, body: LegacySubscriptionBody): Promise<Subscription> {
      const plan = upgradeModalPlan(body.plan);
      if (body.price !== undefined && body.price !== plan.price) throw badRequest(PRICE_MISMATCH);
      const at = now();
      const row = await repo.insertIfNone({
        userId,
        status: 'active',
        tier: 'premium',
        billingCycle: body.plan,
        price: plan.price,
        endDate: upgradeModalEndDate(body.plan, at),
        source: 'trial',
        updatedAt: at,
      });
      if (!row) {
        const existing = await repo.findByUser(userId);
        if (existing && isSubscriptionActive(existing, at)) throw conflict('You already have an active subscription.');
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
      if (!row || !isSubscriptionActive(row, at)) throw conflict('You have no active subscription to cancel.');
      if (row.source === 'stripe') {
        if (!row.stripeSubscriptionId || !stripe) {
          throw conflict('This subscription cannot be cancelled right now. Please try again later.');
        }
        if (!row.cancelAtPeriodEnd) {
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
