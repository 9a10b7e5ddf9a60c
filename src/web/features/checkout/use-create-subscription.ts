import type { CreateSubscriptionResponse } from '@contract/subscriptions';
import type { BillingCycle, Tier } from '@domain/plans';
import { useQuery } from '@tanstack/react-query';
import { apiRequest, PAYMENT_WAIT_MS } from '../../lib/api';

/**
 * POST /api/create-subscription as a query: the server reuses the open Stripe subscription for a
 * repeat of the same plan, so a re-render or reload never asks for a second payment.
 */
export function useCreateSubscription(tier: Tier, billingCycle: BillingCycle, enabled: boolean) {
  return useQuery({
    queryKey: ['/api/create-subscription', tier, billingCycle],
    queryFn: async () =>
      (await (
        await apiRequest('POST', '/api/create-subscription', { tier, billingCycle }, {}, { waitMs: PAYMENT_WAIT_MS })
      ).json()) as CreateSubscriptionResponse,
    enabled,
    gcTime: 0,
  });
}
