import { useEffect, useLayoutEffect, useRef, useState } from 'react';

/**
 * Drives a game's deadline (see src/domain/games/README.md): when `at` (ms since epoch) is due,
 * calls `onDue(Date.now())`. A timer that fires a little early is re-armed instead of ticking, so a
 * tick never arrives before its deadline and the game can never stall on an unchanged deadline.
 */
export function useDeadline(at: number | null, onDue: (now: number) => void): void {
  const callback = useRef(onDue);
  useLayoutEffect(() => {
    callback.current = onDue;
  });
  useEffect(() => {
    if (at === null) return;
    let id: ReturnType<typeof setTimeout>;
    const arm = () => {
      id = setTimeout(
        () => {
          const now = Date.now();
          if (now < at) arm();
          else callback.current(now);
        },
        Math.max(0, at - Date.now()),
      );
    };
    arm();
    return () => clearTimeout(id);
  }, [at]);
}

/** Current time, refreshed every `intervalMs` while `running` (for 'time left' displays). */
export function useNow(running: boolean, intervalMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!running) return;
    setNow(Date.now());
    const id = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(id);
  }, [running, intervalMs]);
  return now;
}

/** Calls `onComplete` once, the first time `result` is non-null. */
export function useReportOnce<T>(result: T | null, onComplete: (result: T) => void): void {
  const reported = useRef(false);
  const callback = useRef(onComplete);
  useLayoutEffect(() => {
    callback.current = onComplete;
  });
  useEffect(() => {
    if (result === null || reported.current) return;
    reported.current = true;
    callback.current(result);
  }, [result]);
}
