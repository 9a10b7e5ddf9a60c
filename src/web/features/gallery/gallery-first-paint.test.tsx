// @vitest-environment jsdom
import { QueryClient } from '@tanstack/react-query';
import { screen, waitFor } from '@testing-library/react';
import { keepFirstPaint } from '../../app/first-paint';
import { renderGallery as renderGalleryScreen, stubResizeObserver } from './test-gallery';
import { testPhoto } from './test-photos';

/**
 * The gallery's first photos painted by the server (web-pages.ts) stay on screen until the first
 * timeline answer renders: no skeletons in between (a flash, and a later largest paint). Once the
 * screen has shown its own content, the painted copy is never shown again.
 */
const photo = { ...testPhoto('p1', 'Real one'), url: '/api/photos/p1/file', analyzed: true };

/** The first tile's picture as the server put it inside the page (web-pages.ts `inlinePictures`). */
const INLINED = 'data:image/webp;base64,UklGRg==';

let answer: (body: unknown) => void = () => {};
beforeAll(() => {
  stubResizeObserver();
  vi.stubGlobal(
    'fetch',
    vi.fn(
      () =>
        new Promise((resolve) => {
          answer = (body) =>
            resolve(new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } }));
        }),
    ),
  );
  window.history.replaceState(null, '', '/gallery');
  const container = document.createElement('div');
  container.innerHTML =
    '<div id="first-paint" class="contents"><header>Eyevu</header><main><h1>Photo Gallery</h1>' +
    `<img src="${INLINED}" data-src="/api/photos/p1/thumbnail?v=1" alt="Painted one"></main></div>`;
  keepFirstPaint(container);
});
afterAll(() => vi.unstubAllGlobals());

// Only the gallery's own queries ask (its one `fetch` answer at a time is the timeline's).
const renderGallery = () =>
  renderGalleryScreen({ qc: new QueryClient({ defaultOptions: { queries: { retry: false } } }) });

describe('the gallery after a server-painted first screen', () => {
  it('keeps the painted photos until its first answer renders, then shows only its own', async () => {
    const first = renderGallery();
    expect(screen.getByRole('img', { name: 'Painted one' })).toBeInTheDocument();
    expect(screen.queryByTestId('photo-skeleton')).toBeNull();
    answer({ items: [photo], nextCursor: null, total: 1 });
    await waitFor(() => expect(screen.getByText('1 photos available')).toBeInTheDocument());
    expect(screen.queryByRole('img', { name: 'Painted one' })).toBeNull();
    expect(screen.getAllByRole('heading', { level: 1, name: 'Photo Gallery' })).toHaveLength(1);
    // Its own tile shows the bytes the page carried: the picture is not asked for again.
    expect(screen.getByRole('img', { name: 'Real one' })).toHaveAttribute('src', INLINED);
    first.unmount();

    // Back on the gallery later, without its answer yet: skeletons, never the photos painted at load.
    renderGallery();
    expect(screen.queryByRole('img', { name: 'Painted one' })).toBeNull();
    expect(screen.getAllByTestId('photo-skeleton').length).toBeGreaterThan(0);
  });
});
