import { useEffect, useState, type ReactNode } from 'react';

/** How long the browser may keep it waiting when it is never idle. */
const IDLE_TIMEOUT_MS = 2000;

/**
 * Calls `cb` once the browser has nothing more urgent to do (the first screen painted and its
 * answers rendered); Safari has no requestIdleCallback and gets the next task. Returns a cancel.
 */
export function onIdle(cb: () => void): () => void {
  if (typeof window.requestIdleCallback === 'function') {
    const id = window.requestIdleCallback(cb, { timeout: IDLE_TIMEOUT_MS });
    return () => window.cancelIdleCallback(id);
  }
  const id = setTimeout(cb, 1);
  return () => clearTimeout(id);
}

/**
 * Renders its children only after the first idle moment: for parts of the shell the first screen
 * does not show (the service worker's update prompt), so neither their code nor their mount work
 * is part of the load's first tasks.
 */
export function WhenIdle({ children }: { children: ReactNode }) {
  const [idle, setIdle] = useState(false);
  useEffect(() => onIdle(() => setIdle(true)), []);
  return idle ? children : null;
}
