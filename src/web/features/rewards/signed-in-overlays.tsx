import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { OnboardingModal } from '../onboarding';
import { announceReward } from './announce';
import { useAppActive, useAppStatusHeartbeat } from './app-status-query';
import { postReward, rewardsQueryOptions } from './rewards-query';
import { statsQueryOptions } from './stats-query';

/**
 * Everything a signed-in screen shares beyond the shell: the daily login reward (asked once per
 * app load; the server pays it at most once per local day), the app-status heartbeat and the
 * onboarding modal.
 */
export function SignedInOverlays() {
  const qc = useQueryClient();
  const asked = useRef(false);
  useAppStatusHeartbeat(useAppActive());

  useEffect(() => {
    if (asked.current) return;
    asked.current = true;
    postReward({ type: 'login' })
      .then((r) => {
        announceReward(r);
        if (r.points > 0) {
          void qc.invalidateQueries({ queryKey: statsQueryOptions().queryKey });
          void qc.invalidateQueries({ queryKey: rewardsQueryOptions().queryKey });
        }
      })
      .catch((err) => console.error('Failed to record reward', err));
  }, [qc]);

  return <OnboardingModal />;
}
