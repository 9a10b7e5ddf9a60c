import { useCallback, useLayoutEffect, useRef, type MouseEvent } from 'react';

/**
 * How long a view that has just replaced the pressed control refuses the rest of a double click:
 * the second click comes within the system's double-click time, 500 ms by default on Windows and
 * macOS.
 */
export const SETTLE_MS = 500;

/**
 * A capture click handler for a view that replaces the control the user pressed (Start Game's game
 * board, the game dialog's next view, the viewer uncovered by Skip Game or Continue Browsing): the
 * second click of a double click (or a double tap, which Chrome counts the same), arriving within
 * `SETTLE_MS` of `shown` changing, was meant for the control that went, and is swallowed. A single
 * click passes at once, however fast (a quick player, a keyboard, assistive technology: `detail` 0
 * or 1), and so does a double click meant for the view once it has settled.
 * With `atMount: false` only a change of `shown` arms it, not the first render (a view already there).
 */
export function useSettlingPresses(shown: unknown, { atMount = true } = {}): (event: MouseEvent) => void {
  const since = useRef(Number.NEGATIVE_INFINITY);
  const first = useRef(true);
  useLayoutEffect(() => {
    if (!first.current || atMount) since.current = performance.now();
    first.current = false;
    // Only `shown` arms it.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [shown]);
  return useCallback((event: MouseEvent) => {
    if (event.detail > 1 && performance.now() - since.current < SETTLE_MS) {
      event.preventDefault();
      event.stopPropagation();
    }
  }, []);
}
