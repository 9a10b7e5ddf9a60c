import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { errorStatus } from '../../lib/api';
import { useLocalDay } from '../../lib/use-local-day';
import { recheckSessionOn401 } from '../auth';
import { OnboardingModal } from '../onboarding';
import { announceReward } from './announce';
import { useAppActive, useAppStatusHeartbeat } from './app-status-query';
import { postReward, rewardsQueryOptions } from './rewards-query';
import { statsQueryOptions } from './stats-query';

/** How often an open page asks again after an ask that may pass later failed. */
export const LOGIN_DAY_CHECK_MS = 60_000;

/** A failure that asking again later may not meet: no answer, a server fault, a limit. */
const mayPassLater = (err: unknown) => {
  const status = errorStatus(err);
  return status === undefined || status === 408 || status === 429 || status >= 500;
};

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
  const askedOnce = useRef(false);
  useAppStatusHeartbeat(useAppActive());
  const day = useLocalDay();

  useEffect(() => {
    const ask = () => {
      if (day === askedDay.current) return;
      // The first ask goes whatever the page's state; later ones wait until someone sees the page.
      if (askedOnce.current && document.visibilityState === 'hidden') return;
      askedOnce.current = true;
      askedDay.current = day;
      postReward({ type: 'login' })
        .then((r) => {
          announceReward(r);
          if (r.points > 0) {
            void qc.invalidateQueries({ queryKey: statsQueryOptions().queryKey });
            void qc.invalidateQueries({ queryKey: rewardsQueryOptions().queryKey });
          }
        })
        .catch((err) => {
          console.error('Failed to record reward', err);
          recheckSessionOn401(qc, err);
          // The day counted as asked, so an app opened offline (or while the server restarted)
          // never asked again that day and the user lost the streak. A lost connection, a server
          // fault or a limit is asked again at the next check or when the connection comes back
          // (the server pays once a day, so a late second ask costs nothing); a refusal that would
          // only repeat (a 4xx, the session gone) is not.
          if (askedDay.current === day && mayPassLater(err)) askedDay.current = null;
        });
    };
    ask();
    // A new day re-runs this effect (`useLocalDay`); the check asks again after a failure that may
    // pass later, and a day that came while the page was hidden is asked when the page is shown.
    const id = setInterval(ask, LOGIN_DAY_CHECK_MS);
    document.addEventListener('visibilitychange', ask);
    window.addEventListener('online', ask);
    return () => {
      clearInterval(id);
      document.removeEventListener('visibilitychange', ask);
      window.removeEventListener('online', ask);
    };
  }, [day, qc]);

  return <OnboardingModal />;
}
