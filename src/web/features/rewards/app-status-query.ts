import type { ActivateResponse, AppStatus } from '@contract/app-status';
import { HEARTBEAT_INTERVAL_MS } from '@contract/app-status-timing';
import { utcOffsetMinutesOf } from '@domain/calendar';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { apiRequest, errorMessage } from '../../lib/api';
import { toast } from '../../lib/toast';
import { recheckSessionOn401 } from '../auth';
import { announceReward } from './announce';
import { rewardsQueryOptions } from './rewards-query';
import { statsQueryOptions } from './stats-query';

export const appStatusQueryOptions = () => queryOptions<AppStatus>({ queryKey: ['/api/app-status'] });

export const useAppStatus = () => useQuery(appStatusQueryOptions());

const selectIsActive = (s: AppStatus) => s.isActive;
/**
 * Only whether the app is active: a component reading it re-renders when that flips, not on every
 * answer (the heartbeat's new lastActivity every 30 s, the first load's answer when inactive).
 */
export const useAppActive = () => useQuery({ ...appStatusQueryOptions(), select: selectIsActive }).data ?? false;

/** Activate (true) or deactivate (false). Activation pays 15 once a day; the popup shows it. */
export function useSetAppActive() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (active: boolean): Promise<AppStatus> => {
      if (!active) return (await (await apiRequest('POST', '/api/app-status/deactivate')).json()) as AppStatus;
      const res = await apiRequest('POST', '/api/app-status/activate', {
        utcOffsetMinutes: utcOffsetMinutesOf(new Date()),
      });
      const data = (await res.json()) as ActivateResponse;
      announceReward({
        type: 'activation',
        points: data.points,
        message: data.message,
        currentStreak: 0,
        newAchievements: data.newAchievements,
      });
      if (data.points > 0) {
        void qc.invalidateQueries({ queryKey: statsQueryOptions().queryKey });
        void qc.invalidateQueries({ queryKey: rewardsQueryOptions().queryKey });
      }
      return data.status;
    },
    onSuccess: (status) => qc.setQueryData(appStatusQueryOptions().queryKey, status),
    // A refusal or a lost connection otherwise left the card as it was, with no word of why.
    onError: (err, active) =>
      toast({
        title: 'Error',
        description: errorMessage(err, active ? 'Failed to activate' : 'Failed to deactivate'),
        variant: 'destructive',
      }),
  });
}

/** While active, refresh lastActivity every 30 s. */
export function useAppStatusHeartbeat(active: boolean) {
  const qc = useQueryClient();
  useEffect(() => {
    if (!active) return;
    const id = setInterval(() => {
      apiRequest('POST', '/api/app-status/heartbeat')
        .then((res) => res.json() as Promise<AppStatus>)
        .then((status) => qc.setQueryData(appStatusQueryOptions().queryKey, status))
        // Its 401 (a session ended by expiry, or by a password reset elsewhere) went unseen, and
        // an open tab went on showing the account, answered 401 every 30 s.
        .catch((err) => recheckSessionOn401(qc, err));
    }, HEARTBEAT_INTERVAL_MS);
    return () => clearInterval(id);
  }, [active, qc]);
}
