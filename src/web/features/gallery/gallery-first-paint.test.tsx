// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor } from '@testing-library/react';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { keepFirstPaint } from '../../app/first-paint';
import GalleryPage from './gallery-page';

/**
 * The gallery's first photos painted by the server (web-pages.ts) stay on screen until the first
 * timeline answer renders: no skeletons in between (a flash, and a later largest paint). Once the
 * screen has shown its own content, the painted copy is never shown again.
 */
const photo = {
  id: 'p1',
  name: 'Real one',
  url: '/api/photos/p1/file',
  thumbnailUrl: '/api/photos/p1/thumbnail?v=1',
  previewUrl: '/api/photos/p1/preview',
  uploadedAt: '2026-03-01T10:00:00.000Z',
  takenAt: null,
  size: 1000,
  width: 10,
  height: 10,
  thumbhash: null,
  analyzed: true,
  category: null,
  tags: [],
  description: null,
  albumId: null,
  isDemo: false,
  favorite: false,
};

/** The first tile's picture as the server put it inside the page (web-pages.ts `inlinePictures`). */
const INLINED = 'data:image/webp;base64,UklGRg==';

let answer: (body: unknown) => void = () => {};
beforeAll(() => {
  vi.stubGlobal(
    'ResizeObserver',
    class {
      observe() {}
      disconnect() {}
    },
  );
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

const renderGallery = () =>
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <Router hook={memoryLocation({ path: '/gallery' }).hook}>
        <GalleryPage />
      </Router>
    </QueryClientProvider>,
  );

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
