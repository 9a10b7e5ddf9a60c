import { useEffect } from 'react';

/**
 * The gallery's viewer as an entry of the browser's history, so that Back (a phone's back gesture
 * above all) closes the full-screen viewer instead of leaving the gallery under it. The entry keeps
 * the URL and says which photo was shown, so Back from the photo editor (opened by the viewer's
 * Edit) comes back to the viewer on that photo.
 */
const KEY = 'eyevuViewerPhoto';

type State = Record<string, unknown> | null;
const current = (): State => {
  const s: unknown = window.history.state;
  return s && typeof s === 'object' ? (s as Record<string, unknown>) : null;
};

/** The photo the current history entry showed in the viewer, if it is a viewer entry. */
export function viewerEntryPhoto(): string | null {
  const id = current()?.[KEY];
  return typeof id === 'string' ? id : null;
}

/** Adds the viewer's entry (the same URL), unless the current entry is one already. */
export function pushViewerEntry(photoId: string | undefined): void {
  if (viewerEntryPhoto() !== null) return;
  window.history.pushState({ ...current(), [KEY]: photoId ?? '' }, '');
}

/** The viewer moved on to another photo: its entry names that one (Back from the editor returns to it). */
export function showInViewerEntry(photoId: string): void {
  const shown = viewerEntryPhoto();
  if (shown !== null && shown !== photoId) window.history.replaceState({ ...current(), [KEY]: photoId }, '');
}

let leaving = false;
/** Closed by its own controls: its entry goes too, so Back then leaves the gallery as before. */
export function leaveViewerEntry(): void {
  // Once: a second Back asked before the first has arrived would leave the gallery as well.
  if (leaving || viewerEntryPhoto() === null) return;
  leaving = true;
  window.addEventListener('popstate', () => (leaving = false), { once: true });
  window.history.back();
}

/** Makes the current entry a plain one again (the viewer it named cannot be shown). */
export function forgetViewerEntry(): void {
  const state = { ...current() };
  delete state[KEY];
  window.history.replaceState(state, '');
}

/** While the viewer is open, Back (its entry left, the URL staying the gallery's) closes it. */
export function useCloseViewerOnBack(open: boolean, close: () => void): void {
  useEffect(() => {
    if (!open) return;
    const onBack = () => {
      if (viewerEntryPhoto() === null) close();
    };
    window.addEventListener('popstate', onBack);
    return () => window.removeEventListener('popstate', onBack);
  }, [open, close]);
}
