import type { Subscription } from '@contract/subscriptions';
import { useQuery } from '@tanstack/react-query';
import { subscriptionQueryOptions } from '../billing/subscription-query';

/**
 * The full GET /api/subscription answer (the shared query's data carries more fields than its
 * minimal view type: source, cancelAtPeriodEnd, trialAvailable). Off while signed out, since the
 * pricing screen is public.
 */
export function useSubscriptionDetails(enabled = true) {
  const query = useQuery({ ...subscriptionQueryOptions(), enabled });
  const data = query.data as Subscription | undefined;
  return {
    ...query,
    subscription: data,
    isActive: data?.status === 'active',
    tier: data?.status === 'active' ? data.tier : 'free',
  };
}
