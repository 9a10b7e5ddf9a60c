import type { Subscription } from '@contract/subscriptions';
import { useQuery } from '@tanstack/react-query';
import { subscriptionQueryOptions } from '../billing/subscription-query';

/**
 * The full GET /api/subscription answer (the shared query's data carries more fields than its
 * minimal view type: source, cancelAtPeriodEnd, trialAvailable, trial, trialEndsAt). Off while signed out, since the
 * pricing screen is public.
 */
export function useSubscriptionDetails(enabled = true) {
  const query = useQuery({ ...subscriptionQueryOptions(), enabled });
  const data = query.data as Subscription | undefined;
  const isActive = data?.status === 'active';
  return {
    ...query,
    subscription: data,
    isActive,
    tier: isActive ? data.tier : 'free',
    /** The end of a running free trial, or null: nothing is charged and nothing renews it. */
    trialEndsAt: isActive && data.trial ? (data.trialEndsAt ?? data.endDate) : null,
  };
}
