/**
 * The text a screen reader reads from an element: its text outside aria-hidden parts, with what
 * only screen readers get (`sr-only`). Labels aside.
 */
export function spokenText(el: Element): string {
  if (el.getAttribute('aria-hidden') === 'true') return '';
  let text = '';
  for (const node of el.childNodes) {
    if (node.nodeType === Node.TEXT_NODE) text += node.textContent;
    else if (node instanceof Element) text += spokenText(node);
  }
  return text;
}
