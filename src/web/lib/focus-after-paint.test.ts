// @vitest-environment jsdom
import { focusAfterPaint } from './focus-after-paint';

/**
 * A dialog's auto-focus one frame later: Radix's own move is cancelled (it forced the page's
 * layout inside the task that opened the dialog), and the first enabled control gets focus after
 * the frame, or the dialog itself when it has none.
 */
function dialog(html: string) {
  const el = document.createElement('div');
  el.tabIndex = -1;
  el.innerHTML = html;
  document.body.replaceChildren(el);
  return el;
}
function open(container: HTMLElement) {
  const event = new CustomEvent('focusScope.autoFocusOnMount', { cancelable: true });
  container.addEventListener('focusScope.autoFocusOnMount', focusAfterPaint);
  container.dispatchEvent(event);
  return event;
}
const nextFrame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));

describe('focusAfterPaint', () => {
  it("cancels Radix's focus move and focuses the first enabled control after the frame", async () => {
    const el = dialog(
      '<span>Setup Guide</span><button disabled>Previous</button><button>Close</button><a href="/x">x</a>',
    );
    const event = open(el);
    expect(event.defaultPrevented).toBe(true);
    expect(document.activeElement).toBe(document.body);
    await nextFrame();
    expect(document.activeElement).toBe(el.querySelectorAll('button')[1]);
  });

  it('focuses the dialog itself without a control, and leaves focus alone once it is inside', async () => {
    const bare = dialog('<p>Nothing to press</p>');
    open(bare);
    await nextFrame();
    expect(document.activeElement).toBe(bare);

    const el = dialog('<button>First</button><input aria-label="Second">');
    open(el);
    el.querySelector('input')!.focus();
    await nextFrame();
    expect(document.activeElement).toBe(el.querySelector('input'));
  });
});
