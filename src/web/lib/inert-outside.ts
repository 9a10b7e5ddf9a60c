/**
 * Makes the page around `layer` inert (no focus, no pointer, out of the accessibility tree), for a
 * modal layer that is not a Radix dialog and so gets neither its focus trap nor its aria-hidden.
 * Kept: `layer`, its ancestors, and live regions (a toast raised meanwhile must still be read out;
 * an inert subtree is not announced). Nodes that later join an ancestor of `layer` are made inert as
 * they arrive; new children of <body> are left alone, since those are dialogs portalled over the layer.
 * Answers the undo, which touches only what it set.
 */
export function inertOutside(layer: HTMLElement): () => void {
  const doc = layer.ownerDocument;
  const live = Array.from(doc.querySelectorAll<HTMLElement>('[aria-live]'));
  const kept = new Set<Element>([layer, ...live]);
  const path = new Set<Element>();
  for (const node of kept) {
    for (let el = node.parentElement; el && !path.has(el); el = el.parentElement) path.add(el);
  }
  const made: Element[] = [];
  const makeInert = (el: Element) => {
    if (kept.has(el) || el.hasAttribute('inert') || el.tagName === 'SCRIPT') return;
    el.setAttribute('inert', '');
    made.push(el);
  };
  const walk = (parent: Element) => {
    for (const child of Array.from(parent.children)) {
      if (kept.has(child)) continue;
      if (path.has(child)) walk(child);
      else makeInert(child);
    }
  };
  walk(doc.body);

  const watched = [...path].filter((el) => el !== doc.body && el !== doc.documentElement);
  const observer = new MutationObserver((records) => {
    for (const record of records) {
      for (const node of Array.from(record.addedNodes)) {
        if (node instanceof Element && !node.hasAttribute('aria-live')) makeInert(node);
      }
    }
  });
  for (const el of watched) observer.observe(el, { childList: true });

  return () => {
    observer.disconnect();
    for (const el of made) el.removeAttribute('inert');
  };
}
