/**
 * Zod-free values of the subscriptions contract: the dashboard and the pricing screen load them on
 * every visit without pulling zod into their first JS (bench/README.md, P5).
 */
import type { Subscription } from './subscriptions';

/** The 403 a free account gets for the ad overlay; the dashboard shows the same words before asking. */
export const PREMIUM_REQUIRED_MESSAGE = 'Premium subscription required for ad overlay';

/** An account with no subscription row: the free plan, nothing running, the trial still to take. */
export const FREE_SUBSCRIPTION: Subscription = {
  status: 'inactive',
  tier: 'free',
  billingCycle: 'monthly',
  price: 0,
  endDate: null,
  source: 'none',
  cancelAtPeriodEnd: false,
  trialAvailable: true,
  trial: false,
  trialEndsAt: null,
  paymentDue: false,
};
