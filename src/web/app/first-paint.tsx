import type { ReactNode } from 'react';
import { useLocation } from 'wouter';

/**
 * The first content the server painted for this path (src/server/http/web-pages.ts), kept so that
 * React shows the same markup while the session check and the screen's chunk load. Without it the
 * page would go from that content back to a spinner and then to the screen: a flash, and a later
 * largest paint. It is the same markup, so nothing moves, and React's own nodes replace it as one
 * tree: the screen, once loaded, is the only copy in the document.
 */
interface Snapshot {
  path: string;
  bar: string;
  content: string;
}
let snapshot: Snapshot | null = null;

/**
 * The pictures the server put inside the page (`data:` URLs, src/server/http/web-pages.ts), by
 * the URL the screen names them with: the screen shows these bytes instead of asking the URL
 * again, so the first screen's pictures cross the link once. Kept while the account is the same.
 */
const inlined = new Map<string, string>();

/** The picture's bytes as the page carried them, else its URL. */
export function pictureSrc(url: string): string {
  return inlined.get(url) ?? url;
}

/** Reads the server's first content before React replaces the container's children. */
export function keepFirstPaint(container: HTMLElement) {
  const el = container.querySelector('#first-paint');
  if (!el) return;
  for (const img of el.querySelectorAll<HTMLImageElement>('img[data-src]')) {
    const src = img.getAttribute('src');
    if (img.dataset.src && src?.startsWith('data:image/')) inlined.set(img.dataset.src, src);
  }
  snapshot = {
    path: window.location.pathname,
    bar: el.querySelector(':scope > header')?.outerHTML ?? '',
    content: el.querySelector(':scope > main')?.outerHTML ?? '',
  };
}

/**
 * The kept screen content while its path is shown, for a screen that shows it until its own
 * answers render (the gallery and the dashboard: the server painted their first screen), else null.
 */
export function usePaintedContent(): string | null {
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

/** Another account, or none: the last one's pictures go with its other answers. */
export function forgetFirstPaintPictures() {
  inlined.clear();
}

/**
 * The kept content while its path is shown, else `fallback`. `withBar` when no status bar is
 * rendered around it yet (the session check); inside the signed-in or signed-out app the real
 * status bar is already there.
 */
export function FirstPaint({ withBar = false, fallback }: { withBar?: boolean; fallback: ReactNode }) {
  const [location] = useLocation();
  if (!snapshot || snapshot.path !== location) return fallback;
  const html = withBar ? snapshot.bar + snapshot.content : snapshot.content;
  return <div className="contents" dangerouslySetInnerHTML={{ __html: html }} />;
}
