import { calendarDay, utcOffsetMinutesOf, type CalendarDay } from '@domain/calendar';
import { useEffect, useState } from 'react';

const today = (): CalendarDay => {
  const now = new Date();
  return calendarDay(now, utcOffsetMinutesOf(now));
};

/**
 * The browser's calendar day, changing at its local midnight. A timer set for midnight, not a
 * poll; a phone freezes a hidden page's timers (desktop browsers throttle them), so a page shown
 * again catches up at once.
 */
export function useLocalDay(): CalendarDay {
  const [day, setDay] = useState(today);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const check = () => {
      setDay(today());
      clearTimeout(timer);
      const now = new Date();
      const midnight = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1);
      // Fired a moment early (a clock adjusted), it finds the same day and waits the rest.
      timer = setTimeout(check, midnight.getTime() - now.getTime());
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
