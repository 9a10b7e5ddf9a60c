/** What the browser can reach with Tab, as Radix's focus scope counts it. */
const TABBABLE = 'a[href], button, input, select, textarea, [tabindex]';

/**
 * A dialog's `onOpenAutoFocus` that moves focus into it one frame later. Radix focuses the first
 * control while React commits the dialog, and `focus()` then forces the style and layout of the
 * whole page inside that same task; a dialog that opens by itself while the page is still busy (the
 * Setup Guide, 1 s after the first load) made that one long task. Here the frame lays the dialog out
 * first, and the focus move is a small task of its own. The target is the one Radix would choose: the
 * first enabled, visible control, else the dialog itself. Nothing moves if focus already went inside.
 */
export function focusAfterPaint(event: Event) {
  event.preventDefault();
  const container = event.currentTarget;
  if (!(container instanceof HTMLElement)) return;
  requestAnimationFrame(() =>
    setTimeout(() => {
      if (!container.isConnected || container.contains(document.activeElement)) return;
      const first = [...container.querySelectorAll<HTMLElement>(TABBABLE)].find(
        (el) =>
          el.tabIndex >= 0 &&
          !(el as HTMLButtonElement).disabled &&
          !el.hidden &&
          (typeof el.checkVisibility !== 'function' || el.checkVisibility({ checkVisibilityCSS: true })),
      );
      (first ?? container).focus({ preventScroll: true });
    }, 0),
  );
}
