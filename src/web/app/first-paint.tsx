import { useCallback, type ReactNode } from 'react';
import { useLocation } from 'wouter';

/**
 * The first content the server painted for this path (src/server/http/web-pages.ts), kept so that
 * React shows it while the session check and the screen's chunk load. Without it the page would go
 * from that content back to a spinner and then to the screen: a flash, and a later largest paint.
 * React shows the server's own nodes, moved into its tree (not a copy made from their markup):
 * no second parse, the painted images stay decoded, and no new node can become a later largest
 * paint. React's own nodes replace them as one tree: the screen, once loaded, is the only copy.
 */
interface Snapshot {
  path: string;
  bar: Element | null;
  content: Element | null;
}
let snapshot: Snapshot | null = null;

/** Keeps the server's first content before React's first commit empties the container. */
export function keepFirstPaint(container: HTMLElement) {
  const el = container.querySelector('#first-paint');
  if (!el) return;
  snapshot = {
    path: window.location.pathname,
    bar: el.querySelector(':scope > header'),
    content: el.querySelector(':scope > main'),
  };
}

/**
 * Moves kept nodes into a `contents` box that React owns but never fills, in the commit that
 * mounts it (so no frame is painted without them). React removes the box, and them with it, once
 * the screen renders its own content; another box mounted in the same commit takes them over.
 */
export function PaintedNodes({ nodes }: { nodes: readonly (Element | null)[] }) {
  const [first = null, second = null] = nodes;
  const adopt = useCallback(
    (box: HTMLDivElement | null) => {
      if (box) box.replaceChildren(...[first, second].filter((n): n is Element => n !== null));
    },
    [first, second],
  );
  return <div className="contents" ref={adopt} />;
}

/**
 * The kept screen content while its path is shown, for a screen that shows it until its own
 * answers render (the gallery and the dashboard: the server painted their first screen), else null.
 */
export function usePaintedContent(): Element | null {
  const [location] = useLocation();
  return snapshot && snapshot.path === location ? snapshot.content : null;
}

/**
 * Once the screen shows its own content, the kept copy is never shown again: coming back to the
 * path later must not show what the server painted at load (photos since deleted, say).
 */
export function forgetFirstPaint() {
  snapshot = null;
}

/**
 * The kept content while its path is shown, else `fallback`. `withBar` when no status bar is
 * rendered around it yet (the session check); inside the signed-in or signed-out app the real
 * status bar is already there.
 */
export function FirstPaint({ withBar = false, fallback }: { withBar?: boolean; fallback: ReactNode }) {
  const [location] = useLocation();
  if (!snapshot || snapshot.path !== location) return fallback;
  return <PaintedNodes nodes={withBar ? [snapshot.bar, snapshot.content] : [snapshot.content]} />;
}
