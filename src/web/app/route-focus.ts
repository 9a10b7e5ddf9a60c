import { useEffect, useRef } from 'react';
import { useLocation, useSearch } from 'wouter';

/** Sets the document's title while mounted and whenever it changes. */
export function useDocumentTitle(title: string) {
  useEffect(() => {
    document.title = title;
  }, [title]);
}

/**
 * After a move to another screen, focus goes to its main heading, so a screen reader reads where
 * the user arrived ('Photo Gallery, heading level 1') and the next Tab starts at the top of the
 * new screen. Without it, focus stayed on the pressed bottom-navigation tab (nothing was read but
 * the tab), or fell to the page when the pressed link went with the old screen, and the next Tab
 * started from the top of the document. Not on the first load: the browser reads the new page then.
 *
 * The heading may come later than the move (a screen's chunk loading, a screen that shows a
 * spinner first, the login replaced by the dashboard once the session's answer arrives), so this
 * watches the document until the user presses a key or a pointer, or moves focus themselves: the
 * heading gets focus whenever focus is on the page (or still on what was pressed) and a main
 * heading is there. The page starts at its top, as a new page does, unless Back or Forward brought
 * it (the heading is then focused without scrolling, so the position the user left stays).
 *
 * A change of the query alone (the gallery's Favorites, its duplicates album and 'All photos') is
 * the same screen: focus stays on a control that is still there (the view switch), and goes to
 * the heading only when the pressed control went with the old view.
 *
 * `signedIn` (null while the session is first checked): a sign-in or sign-out is a move to another
 * screen even where the address stays, as a sign-in on '/' (the login there, the dashboard after),
 * where focus fell to the page with the form. The session check's first answer is the first load.
 */
export function useRouteFocus(signedIn: boolean | null = null) {
  const [location] = useLocation();
  const search = useSearch();
  const shown = useRef({ location, search, signedIn });
  // The address a Back or Forward landed on: there the browser's own scroll position stands (a
  // gallery scrolled down, opened the Organizer, Back) instead of the top a new page starts at.
  const poppedTo = useRef<string | null>(null);
  useEffect(() => {
    const popped = () => {
      poppedTo.current = window.location.href;
    };
    window.addEventListener('popstate', popped);
    return () => window.removeEventListener('popstate', popped);
  }, []);
  useEffect(() => {
    const before = shown.current;
    shown.current = { location, search, signedIn };
    const account = before.signedIn !== null && before.signedIn !== signedIn;
    if (before.location === location && before.search === search && !account) return;
    const newScreen = before.location !== location || account;
    const byHistory = poppedTo.current === window.location.href;
    poppedTo.current = null;
    if (newScreen && !byHistory) window.scrollTo(0, 0);
    const pressed = newScreen ? document.activeElement : null;
    let focused: HTMLElement | null = null;
    const settle = () => {
      const active = document.activeElement;
      const heading = document.querySelector<HTMLElement>('main h1');
      if (!heading || heading === active) return;
      if (active && active !== document.body && active !== pressed && active !== focused) return;
      // Not a control: reachable by script only, so Tab order does not change.
      if (!heading.hasAttribute('tabindex')) heading.setAttribute('tabindex', '-1');
      focused = heading;
      heading.focus({ preventScroll: true });
    };
    const observer = new MutationObserver(settle);
    const stop = () => {
      observer.disconnect();
      document.removeEventListener('keydown', stop, true);
      document.removeEventListener('pointerdown', stop, true);
      document.removeEventListener('focusin', movedByUser, true);
    };
    // Focus the user (or a dialog) moved elsewhere is theirs: stop following the screen.
    const movedByUser = (event: FocusEvent) => {
      if (event.target !== focused && event.target !== pressed) stop();
    };
    settle();
    observer.observe(document.body, { childList: true, subtree: true });
    document.addEventListener('keydown', stop, true);
    document.addEventListener('pointerdown', stop, true);
    document.addEventListener('focusin', movedByUser, true);
    return stop;
  }, [location, search, signedIn]);
}
