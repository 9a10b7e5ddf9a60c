import type { UpgradeBody, UpgradeResponse } from '@contract/subscriptions';
import { useMutation } from '@tanstack/react-query';
import { apiRequest } from '../../lib/api';

/** POST /api/subscription/upgrade: the server checks the price and answers the checkout address. */
export function useUpgrade() {
  return useMutation({
    mutationFn: async (body: UpgradeBody) =>
      (await (await apiRequest('POST', '/api/subscription/upgrade', body)).json()) as UpgradeResponse,
  });
}
