import type { Subscription } from '@contract/subscriptions';
import { FREE_SUBSCRIPTION } from '@contract/subscriptions-values';
import { queryOptions, useQuery } from '@tanstack/react-query';

/** `GET /api/subscription` answers a free default when the user has none; cached 5 minutes. */
export const subscriptionQueryOptions = () =>
  queryOptions<Subscription>({
    queryKey: ['/api/subscription'],
    staleTime: 5 * 60 * 1000,
  });

/** The subscription, the free plan until it loads. */
export function useSubscription() {
  const query = useQuery(subscriptionQueryOptions());
  const subscription = query.data ?? FREE_SUBSCRIPTION;
  return { ...query, subscription, isActive: subscription.status === 'active' };
}

/**
 * The server's answer as it is (undefined until it loads), with the tier that counts and the end of
 * a running trial. Off while signed out, since the pricing screen is public.
 */
export function useSubscriptionDetails(enabled = true) {
  const query = useQuery({ ...subscriptionQueryOptions(), enabled });
  const data = query.data;
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
