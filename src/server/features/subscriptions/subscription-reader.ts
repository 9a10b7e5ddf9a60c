import { isPaymentDue, isSubscriptionActive } from '@domain/plans';
import { FREE_SUBSCRIPTION, PREMIUM_REQUIRED_MESSAGE, type Subscription } from '@contract/subscriptions';
import type { Db } from '../../db/client';
import { forbidden } from '../../http/errors';
import { createSubscriptionsRepository, type SubscriptionRow } from './subscriptions.repository';

const KNOWN_STATUSES = new Set<string>(['active', 'past_due', 'canceled', 'incomplete', 'paused']);

/**
 * The client-facing view of a stored row at `now`. Only a row that is active by the catalogue's
 * rule (status 'active' and endDate in the future) reports a paid tier; an active row whose end
 * date has passed reads as 'expired' on the free tier.
 */
export function toSubscriptionView(row: SubscriptionRow | undefined, now: Date): Subscription {
  if (!row) return { ...FREE_SUBSCRIPTION };
  const active = isSubscriptionActive(row, now);
  const status: Subscription['status'] = active
    ? 'active'
    : row.status === 'active'
      ? 'expired'
      : KNOWN_STATUSES.has(row.status)
        ? (row.status as Subscription['status'])
        : 'inactive';
  const trial = active && row.source === 'trial';
  return {
    status,
    tier: active ? (row.tier as Subscription['tier']) : 'free',
    billingCycle: row.billingCycle === 'yearly' ? 'yearly' : 'monthly',
    price: active ? row.price : 0,
    endDate: row.endDate ? row.endDate.toISOString() : null,
    source: row.source === 'trial' || row.source === 'stripe' || row.source === 'upgrade' ? row.source : 'none',
    cancelAtPeriodEnd: row.cancelAtPeriodEnd,
    // The modal's free trial is for accounts that never had a subscription of any kind.
    trialAvailable: false,
    trial,
    trialEndsAt: trial && row.endDate ? row.endDate.toISOString() : null,
    paymentDue: isPaymentDue(row, now),
  };
}

/**
 * What other features use to gate on the server (photos over the free limit, the ad overlay):
 * `isActive` for a yes/no, `requireActive` to throw the 403 the client shows as an upgrade prompt.
 * `clock` is the server's (the app's `now`): a plan's end, its start and every gate read one clock.
 */
export function createSubscriptionReader(db: Db, clock: () => Date = () => new Date()) {
  const repo = createSubscriptionsRepository(db);
  return {
    async get(userId: string, now: Date = clock()): Promise<Subscription> {
      return toSubscriptionView(await repo.findByUser(userId), now);
    },
    async isActive(userId: string, now: Date = clock()): Promise<boolean> {
      return isSubscriptionActive(await repo.findByUser(userId), now);
    },
    /** Throws 403 `{message}` for a user without an active subscription. */
    async requireActive(userId: string, message = PREMIUM_REQUIRED_MESSAGE, now: Date = clock()): Promise<void> {
      if (!(await this.isActive(userId, now))) throw forbidden(message);
    },
  };
}
export type SubscriptionReader = ReturnType<typeof createSubscriptionReader>;
