import type { Photo } from '@contract/photos';
import { extensionFor } from '@domain/image-types';
import { READ_WAIT_MS } from '../../lib/api';

export type ShareOutcome = 'shared' | 'cancelled' | 'unavailable';

/**
 * How long the photo's file may bring nothing (no answer, or no more bytes) before the share gives
 * up as a lost connection, told as share failures are ('Share failed', 'Network error. Please try
 * again.'). On a dead connection (a phone's half-open TCP connection, a proxy holding the request)
 * the Share button stayed disabled for as long as the browser kept the request, minutes. Silence is
 * bounded, not the whole download: an original is large, and a slow phone connection may take well
 * over a minute to bring it while bytes keep coming. The same 30 s as a read.
 */
export const SHARE_STALL_MS = READ_WAIT_MS;

/** The photo's file, given up (as a TypeError, like fetch's own network failures) after SHARE_STALL_MS of silence. */
async function fetchFile(url: string): Promise<Blob> {
  const stop = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stalled = new Promise<never>((_, reject) =>
    stop.signal.addEventListener('abort', () => reject(new TypeError(`Nothing arrived for ${SHARE_STALL_MS} ms`))),
  );
  // Waited on whether or not anything else is: unobserved, its rejection would be reported.
  stalled.catch(() => {});
  const waitAgain = () => {
    clearTimeout(timer);
    timer = setTimeout(() => stop.abort(), SHARE_STALL_MS);
  };
  waitAgain();
  try {
    const res = await Promise.race([fetch(url, { credentials: 'include', signal: stop.signal }), stalled]);
    if (!res.ok) throw new Error(`${res.status}: ${res.statusText}`);
    const type = res.headers.get('content-type') ?? '';
    if (!res.body) return await Promise.race([res.blob(), stalled]);
    const reader = res.body.getReader();
    const chunks: Uint8Array<ArrayBuffer>[] = [];
    try {
      for (;;) {
        waitAgain();
        const { done, value } = await Promise.race([reader.read(), stalled]);
        if (done) break;
        chunks.push(value as Uint8Array<ArrayBuffer>);
      }
    } catch (err) {
      void reader.cancel().catch(() => {});
      throw err;
    }
    return new Blob(chunks, { type });
  } finally {
    clearTimeout(timer);
  }
}

/** The Web Share API with files (phones, some desktops); absent in most desktop browsers. */
export function canShareFiles(nav: Navigator = navigator): boolean {
  return typeof nav.share === 'function' && typeof nav.canShare === 'function';
}

/**
 * Shares the photo as it is shown (with its filter, if any) as a file through the system share
 * sheet. Answers 'unavailable' when the browser cannot share files: nothing is copied instead.
 */
export async function sharePhoto(photo: Photo, nav: Navigator = navigator): Promise<ShareOutcome> {
  if (!canShareFiles(nav)) return 'unavailable';
  const blob = await fetchFile(photo.url);
  const type = blob.type || 'image/jpeg';
  const file = new File([blob], `${photo.name}.${extensionFor(type, 'jpg')}`, { type });
  if (!nav.canShare({ files: [file] })) return 'unavailable';
  try {
    await nav.share({ files: [file], title: photo.name });
    return 'shared';
  } catch (err) {
    // The user closed the share sheet: not an error to report.
    if (err instanceof DOMException && err.name === 'AbortError') return 'cancelled';
    throw err;
  }
}
