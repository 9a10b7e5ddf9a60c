import type { LegacySubscriptionBody, Subscription } from '@contract/subscriptions';
import { trialEndDate, upgradeModalPlan, type UpgradeModalPlanId } from '@domain/plans';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../lib/api';
import { subscriptionQueryOptions } from './subscription-query';

/** POST /api/subscription with the modal's older payload; the server decides the trial's end and price. */
export function useStartTrial() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (plan: UpgradeModalPlanId) => {
      const body: LegacySubscriptionBody = {
        plan,
        status: 'active',
        endDate: trialEndDate(new Date()).toISOString(),
        price: upgradeModalPlan(plan).price,
      };
      const res = await apiRequest('POST', '/api/subscription', body);
      return (await res.json()) as Subscription;
    },
    onSuccess: async (sub) => {
      qc.setQueryData(subscriptionQueryOptions().queryKey, sub);
      await qc.invalidateQueries({ queryKey: subscriptionQueryOptions().queryKey });
    },
  });
}
