import type { Subscription } from '@contract/subscriptions';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest, PAYMENT_WAIT_MS } from '../../lib/api';
import { subscriptionQueryOptions } from '../subscription';

/** POST /api/subscription/cancel: a trial ends at once, a paid plan at the end of its period. */
export function useCancelSubscription() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async () =>
      (await (
        await apiRequest('POST', '/api/subscription/cancel', undefined, {}, { waitMs: PAYMENT_WAIT_MS })
      ).json()) as Subscription,
    onSuccess: async (sub) => {
      qc.setQueryData(subscriptionQueryOptions().queryKey, sub);
      await qc.invalidateQueries({ queryKey: subscriptionQueryOptions().queryKey });
    },
  });
}
