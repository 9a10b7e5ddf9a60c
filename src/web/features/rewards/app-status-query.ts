import type { ActivateResponse, AppStatus } from '@contract/app-status';
import { HEARTBEAT_INTERVAL_MS } from '@contract/app-status-timing';
import { utcOffsetMinutesOf } from '@domain/calendar';
import { queryOptions, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
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

/** Every Activate and Deactivate (the status card's, the ad break's): the heartbeat defers to them. */
const SET_ACTIVE_KEY = ['/api/app-status', 'set-active'];

/** Activate (true) or deactivate (false). Activation pays 15 once a day; the popup shows it. */
export function useSetAppActive() {
  const qc = useQueryClient();
  return useMutation({
    mutationKey: SET_ACTIVE_KEY,
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

/**
 * Whether Activate or Deactivate was pressed since `sentAt`, or is on its way: a heartbeat
 * answered meanwhile tells the status from before it.
 */
function switchedSince(qc: QueryClient, sentAt: number): boolean {
  return qc
    .getMutationCache()
    .findAll({ mutationKey: SET_ACTIVE_KEY })
    .some((m) => m.state.status === 'pending' || m.state.submittedAt >= sentAt);
}

/**
 * While active, refresh lastActivity every 30 s. A heartbeat the server read before a Deactivate
 * and answered after it put 'Active' back on screen (until the next one, 30 s on, said otherwise):
 * none is sent while a switch is on its way, and an answer that a switch pressed since has
 * overtaken is dropped.
 */
export function useAppStatusHeartbeat(active: boolean) {
  const qc = useQueryClient();
  useEffect(() => {
    if (!active) return;
    const id = setInterval(() => {
      if (qc.isMutating({ mutationKey: SET_ACTIVE_KEY }) > 0) return;
      const sentAt = Date.now();
      apiRequest('POST', '/api/app-status/heartbeat')
        .then((res) => res.json() as Promise<AppStatus>)
        .then((status) => {
          if (!switchedSince(qc, sentAt)) qc.setQueryData(appStatusQueryOptions().queryKey, status);
        })
        // Its 401 (a session ended by expiry, or by a password reset elsewhere) went unseen, and
        // an open tab went on showing the account, answered 401 every 30 s.
        .catch((err) => recheckSessionOn401(qc, err));
    }, HEARTBEAT_INTERVAL_MS);
    return () => clearInterval(id);
  }, [active, qc]);
}
