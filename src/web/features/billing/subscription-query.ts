import { queryOptions, useQuery } from '@tanstack/react-query';

/** Spec section 3: Subscription. `GET /api/subscription` answers a free default when the user has none. */
export interface SubscriptionView {
  status: string;
  tier: 'free' | 'basic' | 'premium' | 'ultimate' | string;
  billingCycle: 'monthly' | 'yearly' | string;
  /** Integer cents. */
  price: number;
  /** ISO date or null. */
  endDate: string | null;
}

export const FREE_SUBSCRIPTION: SubscriptionView = {
  status: 'inactive',
  tier: 'free',
  billingCycle: 'monthly',
  price: 0,
  endDate: null,
};

/** Spec section 7: the subscription is cached 5 minutes. */
export const subscriptionQueryOptions = () =>
  queryOptions<SubscriptionView>({
    queryKey: ['/api/subscription'],
    staleTime: 5 * 60 * 1000,
  });

export function useSubscription() {
  const query = useQuery(subscriptionQueryOptions());
  const subscription = query.data ?? FREE_SUBSCRIPTION;
  return { ...query, subscription, isActive: subscription.status === 'active' };
}
