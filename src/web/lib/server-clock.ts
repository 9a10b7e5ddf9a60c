import { useEffect, useState } from 'react';

/**
 * The server's clock as this browser can tell it. Every time the screens show against a server's
 * instant ('Active for 5 minutes', 'Last activity: 1 minute ago', 'N minutes ago', 'Member for N
 * days') and the moment a plan ends are the server's; read against a device clock set minutes
 * ahead, the status card said 'Active for 10 minutes' right after Activate, and a clock behind said
 * 'less than a minute' for as long as it lagged. Each API answer's `Date` header tells the server's
 * time at that moment (to the second, so half a second is added for the truncation); the offset
 * from the device clock is kept and applied. A difference below the header's own accuracy is taken
 * as none.
 */
const NOISE_MS = 1_500;
let offsetMs = 0;
const listeners = new Set<() => void>();

function setOffset(ms: number) {
  if (ms === offsetMs) return;
  offsetMs = ms;
  for (const l of listeners) l();
}

/** Reads the server's time from an answer's `Date` header (answers without one change nothing). */
export function noteServerDate(res: Pick<Response, 'headers'>, receivedAt = Date.now()): void {
  const header = res.headers?.get?.('date');
  if (!header) return;
  const serverMs = Date.parse(header);
  if (Number.isNaN(serverMs)) return;
  const estimate = serverMs + 500 - receivedAt;
  // Small moves within the header's accuracy would only redraw the screens for nothing.
  if (Math.abs(estimate - offsetMs) < NOISE_MS) return;
  setOffset(Math.abs(estimate) < NOISE_MS ? 0 : estimate);
}

/** The server's time now, as milliseconds since the epoch. */
export function serverNow(): number {
  return Date.now() + offsetMs;
}

/** Forgets what was learnt (tests; a new page starts from none). */
export function forgetServerClock(): void {
  setOffset(0);
}

/**
 * The server's current time, refreshed every `intervalMs`: for text that counts from a server
 * instant. The status bar's clock is the device's own and keeps `useNow`.
 */
export function useServerNow(intervalMs = 30_000): Date {
  const [now, setNow] = useState(() => new Date(serverNow()));
  useEffect(() => {
    const tick = () => setNow(new Date(serverNow()));
    // The first answers often arrive after the screen's first render: they redraw it at once.
    listeners.add(tick);
    const id = setInterval(tick, intervalMs);
    return () => {
      listeners.delete(tick);
      clearInterval(id);
    };
  }, [intervalMs]);
  return now;
}
