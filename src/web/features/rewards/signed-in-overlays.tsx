import { calendarDay, utcOffsetMinutesOf } from '@domain/calendar';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { serverNow } from '../../lib/server-clock';
import { OnboardingModal } from '../onboarding';
import { announceReward } from './announce';
import { useAppActive, useAppStatusHeartbeat } from './app-status-query';
import { postReward, rewardsQueryOptions } from './rewards-query';
import { statsQueryOptions } from './stats-query';

/** How often an open page looks whether the local day has changed (no request unless it has). */
export const LOGIN_DAY_CHECK_MS = 60_000;

/** The device's local day, by the server's clock. */
const localDay = () => calendarDay(new Date(serverNow()), utcOffsetMinutesOf(new Date()));

/**
 * Everything a signed-in screen shares beyond the shell: the daily login reward, the app-status
 * heartbeat and the onboarding modal. The login is asked at the app's start and again whenever a
 * shown page finds the local day changed since it last asked: a phone keeps an installed app's page
 * for days and a desktop tab stays open overnight, and asked only at a page load, a user who opened
 * the app every morning earned no login day and lost the streak. The server pays it at most once per
 * day of the account's zone, so an extra ask costs nothing.
 */
export function SignedInOverlays() {
  const qc = useQueryClient();
  const askedDay = useRef<string | null>(null);
  useAppStatusHeartbeat(useAppActive());

  useEffect(() => {
    const ask = () => {
      const day = localDay();
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
    const id = setInterval(ask, LOGIN_DAY_CHECK_MS);
    document.addEventListener('visibilitychange', ask);
    return () => {
      clearInterval(id);
      document.removeEventListener('visibilitychange', ask);
    };
  }, [qc]);

  return <OnboardingModal />;
}
