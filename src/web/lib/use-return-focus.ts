import { useLayoutEffect, useRef } from 'react';

/**
 * Radix returns focus to a `Dialog.Trigger` on close; our dialogs are controlled and have none, so
 * focus would fall to <body>. This remembers the element focused when the dialog opened (layout
 * effects run before Radix moves focus in) and gives it focus back on close, if it is still there.
 * components/ui/dialog passes the handler as `onCloseAutoFocus`.
 */
export function useReturnFocus(open: boolean): (event: Event) => void {
  const opener = useRef<HTMLElement | null>(null);
  useLayoutEffect(() => {
    if (open && document.activeElement instanceof HTMLElement && document.activeElement !== document.body) {
      opener.current = document.activeElement;
    }
  }, [open]);
  return (event: Event) => {
    const el = opener.current;
    opener.current = null;
    if (el?.isConnected) {
      event.preventDefault();
      el.focus({ preventScroll: true });
    }
  };
}
