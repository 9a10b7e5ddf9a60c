import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useLocalDay } from '../../lib/use-local-day';
import { OnboardingModal } from '../onboarding';
import { announceReward } from './announce';
import { useAppActive, useAppStatusHeartbeat } from './app-status-query';
import { postReward, rewardsQueryOptions } from './rewards-query';
import { statsQueryOptions } from './stats-query';

/**
 * Everything a signed-in screen shares beyond the shell: the daily login reward, the app-status
 * heartbeat and the onboarding modal. The login is asked at the app's start and again whenever a
 * shown page finds the local day changed since it last asked: a phone keeps an installed app's page
 * for days and a desktop tab stays open overnight, and asked only at a page load, a user who opened
 * the app every morning earned no login day and lost the streak. The server pays it at most once per
 * day of the account's zone, so an extra ask costs nothing. The day is counted by the server's clock
 * (`useLocalDay`), as the server counts it.
 */
export function SignedInOverlays() {
  const qc = useQueryClient();
  const askedDay = useRef<string | null>(null);
  useAppStatusHeartbeat(useAppActive());
  const day = useLocalDay();

  useEffect(() => {
    const ask = () => {
      if (day === askedDay.current) return;
      // The first ask goes whatever the page's state; later ones wait until someone sees the page.
      if (askedDay.current !== null && document.visibilityState === 'hidden') return;
      askedDay.current = day;
      postReward({ type: 'login' })
        .then((r) => {
          announceReward(r);
          if (r.points > 0) {
            void qc.invalidateQueries({ queryKey: statsQueryOptions().queryKey });
            void qc.invalidateQueries({ queryKey: rewardsQueryOptions().queryKey });
          }
        })
        .catch((err) => console.error('Failed to record reward', err));
    };
    ask();
    // A day that came while the page was hidden is asked when the page is shown.
    document.addEventListener('visibilitychange', ask);
    return () => document.removeEventListener('visibilitychange', ask);
  }, [day, qc]);

  return <OnboardingModal />;
}
