import type { Photo } from '@contract/photos';
import { extensionFor } from '@domain/image-types';

export type ShareOutcome = 'shared' | 'cancelled' | 'unavailable';

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
  const res = await fetch(photo.url, { credentials: 'include' });
  if (!res.ok) throw new Error(`${res.status}: ${res.statusText}`);
  const blob = await res.blob();
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
