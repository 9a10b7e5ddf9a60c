import { calendarDay, utcOffsetMinutesOf, type CalendarDay } from '@domain/calendar';
import { useEffect, useState } from 'react';
import { serverNow } from './server-clock';

/**
 * The longest a check waits, however far midnight is. A timer counts the machine's running time,
 * not the calendar: on some systems it stands still while the device sleeps, and it knows nothing
 * of a device clock set right or of the server's time learnt after it was set. Each check sends
 * nothing; it only compares a string.
 */
export const LOCAL_DAY_CHECK_MS = 60_000;

/**
 * The user's local calendar day (the browser's zone) at the server's time. The days that matter
 * here are the server's: it pays one login a day and its stats end their week today, both by its
 * own clock in the user's zone. A device clock set hours wrong would otherwise ask at the wrong
 * midnight: three hours fast, the login was asked at 21:00 (the server's today, already paid) and
 * then not again until the next 21:00; the chart asked its new week before the server had one.
 */
function today(): CalendarDay {
  const now = new Date(serverNow());
  return calendarDay(now, utcOffsetMinutesOf(now));
}

/** Milliseconds until the next local midnight at the server's time. */
function untilMidnight(): number {
  const ms = serverNow();
  const now = new Date(ms);
  return new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1).getTime() - ms;
}

/**
 * The user's local day by the server's clock, changing at its midnight, and at once on a page shown
 * again after a phone froze its timers (desktop browsers throttle them).
 */
export function useLocalDay(): CalendarDay {
  const [day, setDay] = useState(today);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const check = () => {
      setDay(today());
      clearTimeout(timer);
      // Fired a moment early (a clock adjusted), it finds the same day and waits the rest.
      timer = setTimeout(check, Math.min(untilMidnight(), LOCAL_DAY_CHECK_MS));
    };
    check();
    const onShown = () => {
      if (document.visibilityState === 'visible') check();
    };
    document.addEventListener('visibilitychange', onShown);
    return () => {
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onShown);
    };
  }, []);
  return day;
}
