import { useLayoutEffect, type RefObject } from 'react';
import { inertOutside } from './inert-outside';

const TABBABLE =
  'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex]';

function tabbables(layer: HTMLElement): HTMLElement[] {
  return Array.from(layer.querySelectorAll<HTMLElement>(TABBABLE)).filter(
    (el) => el.tabIndex >= 0 && !el.closest('[inert], [hidden]'),
  );
}

/**
 * A full-screen layer that is modal while no Radix dialog is open over it (the ad overlay between
 * its viewer and its game): the page behind is inert for as long as the layer is mounted, Tab and
 * Shift+Tab wrap at its edges (browsers would otherwise leave the page for their own toolbar, and a
 * page without `inert` support for the page behind), and when it goes focus returns to what had it
 * as the layer mounted (the control that opened it) if focus was in the layer or nowhere.
 * The listener is on the layer's own DOM node: keys pressed in a dialog portalled over it never
 * reach it (React would bubble them through the portal to a React handler).
 */
export function useModalLayer(ref: RefObject<HTMLElement | null>): void {
  useLayoutEffect(() => {
    const layer = ref.current;
    if (!layer) return;
    const active = layer.ownerDocument.activeElement;
    const opener = active instanceof HTMLElement && active !== layer.ownerDocument.body ? active : null;
    const undo = inertOutside(layer);
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== 'Tab' || event.altKey || event.ctrlKey || event.metaKey) return;
      const all = tabbables(layer);
      const first = all[0];
      const last = all[all.length - 1];
      if (!first || !last) {
        event.preventDefault();
        return;
      }
      const focused = layer.ownerDocument.activeElement;
      if (event.shiftKey ? focused === first || focused === layer : focused === last) {
        event.preventDefault();
        (event.shiftKey ? last : first).focus();
      }
    };
    layer.addEventListener('keydown', onKeyDown);
    return () => {
      layer.removeEventListener('keydown', onKeyDown);
      undo();
      const now = layer.ownerDocument.activeElement;
      const lost = !now || now === layer.ownerDocument.body || layer.contains(now);
      if (lost && opener?.isConnected) opener.focus({ preventScroll: true });
    };
  }, [ref]);
}
