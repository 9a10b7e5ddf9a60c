// @vitest-environment jsdom
import { Profiler } from 'react';
import { flushSync } from 'react-dom';
import { createRoot, type Root } from 'react-dom/client';
import { act } from '@testing-library/react';
import { PhotoGrid } from './photo-grid';
import type { Photo } from '@contract/photos';

/**
 * The grid's first commit is a long task of the gallery's first load (P5's TBT, bench/README `lh6`):
 * a state set in a layout effect renders again synchronously inside that commit. The first render
 * must already have the rows on screen at their final size, so the commit needs no second render.
 */
const photos: Photo[] = Array.from({ length: 12 }, (_, i) => ({
  id: `p${i}`,
  name: `Photo ${i}`,
  url: `/api/photos/p${i}/file`,
  thumbnailUrl: `/api/photos/p${i}/thumbnail?v=1`,
  previewUrl: `/api/photos/p${i}/preview`,
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
}));

let root: Root | undefined;
let host: HTMLDivElement;

beforeEach(() => {
  vi.stubGlobal(
    'ResizeObserver',
    class {
      observe() {}
      disconnect() {}
    },
  );
  // A 412 x 823 phone (Lighthouse's mobile screen): the page's 16 px padding leaves the grid 380 px,
  // and it starts 120 px down the page, under the header.
  vi.stubGlobal('innerWidth', 412);
  vi.stubGlobal('innerHeight', 823);
  vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(380);
  vi.spyOn(HTMLElement.prototype, 'getBoundingClientRect').mockReturnValue(new DOMRect(16, 120, 380, 2000));
  host = document.createElement('div');
  document.body.append(host);
});

afterEach(() => {
  act(() => root?.unmount());
  root = undefined;
  host.remove();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe('PhotoGrid first commit', () => {
  it('mounts the rows on screen at their measured size without a second render inside the commit', async () => {
    // Not an act() environment for the mount: what React renders synchronously is done when
    // flushSync returns, and a transition is not.
    const g = globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean };
    const before = g.IS_REACT_ACT_ENVIRONMENT;
    g.IS_REACT_ACT_ENVIRONMENT = false;
    const commits: string[] = [];
    const rowHeights = () =>
      [...host.querySelectorAll<HTMLElement>('[style*="translateY"]')].map((r) => r.style.height);
    let firstRows: string[] = [];
    try {
      root = createRoot(host);
      flushSync(() =>
        root!.render(
          <Profiler
            id="grid"
            onRender={(_id, phase) => {
              commits.push(phase);
              if (phase === 'mount') firstRows = rowHeights();
            }}
          >
            <PhotoGrid photos={photos} total={photos.length} hasMore={false} loadMore={() => {}} onOpen={() => {}} />
          </Profiler>,
        ),
      );
      expect(commits).toEqual(['mount']);
    } finally {
      g.IS_REACT_ACT_ENVIRONMENT = before;
    }
    // The photos' tiles were in the first commit, already at the size the measured width gives.
    expect(host.querySelectorAll('img')).toHaveLength(photos.length);
    expect(firstRows.length).toBeGreaterThan(0);
    // The offset (which rows to mount) arrives as a transition; the tiles keep their size.
    await act(async () => {});
    expect(rowHeights()).toEqual(firstRows.slice(0, rowHeights().length));
    expect(new Set(rowHeights())).toEqual(new Set(firstRows));
  });
});
