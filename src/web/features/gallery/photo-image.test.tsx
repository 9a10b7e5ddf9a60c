// @vitest-environment jsdom
import { act, render } from '@testing-library/react';
import { rgbaToThumbHash } from 'thumbhash';
import { PhotoImage } from './photo-image';

/**
 * The blurred sketch is decoded after the image mounts, in a task of its own, and only for an image
 * that is not already there: a grid's first render no longer decodes every tile's sketch at once.
 */
const HASH = btoa(String.fromCharCode(...rgbaToThumbHash(4, 4, new Uint8Array(4 * 4 * 4).fill(200))));
const sketchOf = (container: HTMLElement) => (container.firstChild as HTMLElement).style.backgroundImage;

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('PhotoImage', () => {
  it('shows the sketch while the image is still loading, decoded after the render', () => {
    vi.useFakeTimers();
    vi.spyOn(HTMLImageElement.prototype, 'complete', 'get').mockReturnValue(false);
    const { container } = render(<PhotoImage src="/api/photos/a/thumbnail" alt="A" thumbhash={HASH} />);
    expect(sketchOf(container)).toBe('');
    act(() => vi.runAllTimers());
    expect(sketchOf(container)).toMatch(/^url\("?data:image\/png;base64,/);
  });

  it('decodes no sketch for an image that is already there', () => {
    vi.useFakeTimers();
    vi.spyOn(HTMLImageElement.prototype, 'complete', 'get').mockReturnValue(true);
    const { container } = render(<PhotoImage src="/api/photos/b/thumbnail" alt="B" thumbhash={HASH} />);
    act(() => vi.runAllTimers());
    expect(sketchOf(container)).toBe('');
  });
});
