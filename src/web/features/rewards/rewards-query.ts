import type { RecordRewardBody, RecordRewardResponse, RewardsSummary } from '@contract/rewards';
import { utcOffsetMinutesOf } from '@domain/calendar';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../lib/api';
import { announceReward } from './announce';
import { statsQueryOptions } from './stats-query';

/** Rewards are cached 5 minutes. */
export const rewardsQueryOptions = () =>
  queryOptions<RewardsSummary>({ queryKey: ['/api/rewards'], staleTime: 5 * 60 * 1000 });

export const useRewards = () => useQuery(rewardsQueryOptions());

export async function postReward(body: RecordRewardBody): Promise<RecordRewardResponse> {
  const res = await apiRequest('POST', '/api/rewards/record', {
    utcOffsetMinutes: utcOffsetMinutesOf(new Date()),
    ...body,
  });
  return (await res.json()) as RecordRewardResponse;
}

/** `POST /api/rewards/record`; the server decides the points. Refreshes rewards and stats. */
export function useRecordReward() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: postReward,
    onSuccess: (data) => {
      announceReward(data);
      void qc.invalidateQueries({ queryKey: rewardsQueryOptions().queryKey });
      void qc.invalidateQueries({ queryKey: statsQueryOptions().queryKey });
    },
    onError: (err) => console.error('Failed to record reward', err),
  });
}
