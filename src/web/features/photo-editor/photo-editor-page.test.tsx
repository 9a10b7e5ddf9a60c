// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, render, screen } from '@testing-library/react';
import { Suspense } from 'react';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { getQueryFn, READ_WAIT_MS, REQUEST_WAIT_MS } from '../../lib/api';
import { dismissToast, useToasts } from '../../lib/toast';
import { APPLY_WAIT_MS } from './editor-queries';
import PhotoEditorPage from './photo-editor-page';

const ID = '0b0e6f4c-3d55-4a8e-9b9e-2f1f3c0d9a11';
const DEMO_ID = '5d7c3a9e-1f2b-4c6d-8e9f-0a1b2c3d4e5f';

function jsonResponse(body: unknown, status = 200) {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

const photo = (over: Record<string, unknown> = {}) => ({
  id: ID,
  name: 'Fig in a Red Bowl',
  url: `/api/photos/${ID}/original?v=a`,
  thumbnailUrl: `/api/photos/${ID}/thumbnail?v=a`,
  previewUrl: `/api/photos/${ID}/preview?v=a`,
  uploadedAt: '2025-03-01T10:00:00Z',
  takenAt: null,
  size: 1,
  width: 4,
  height: 3,
  thumbhash: null,
  analyzed: true,
  category: 'food_drink',
  tags: ['fig', 'bowl', 'red', 'fruit'],
  description: 'Food and drink',
  albumId: null,
  isDemo: false,
  favorite: false,
  appliedFilter: null,
  ...over,
});

function ToastProbe() {
  const t = useToasts().message;
  return t ? <div data-testid="toast">{`${t.title}|${t.description ?? ''}`}</div> : null;
}

type Answer = (url: string, init?: RequestInit) => Response | Promise<Response> | undefined;

/** The editor at `path` over a fake server: `answer` may override any call, the rest answer as a healthy server. */
function setup(path: string, answer: Answer = () => undefined) {
  let current = photo();
  let gone = false;
  const fetchMock = vi.fn(async (url: string, init?: RequestInit) => {
    const own = answer(url, init);
    if (own) return own;
    if (gone && (url.includes(ID) || String(init?.body).includes(ID)))
      return jsonResponse({ message: 'Photo not found.' }, 404);
    if (url === `/api/photos/${ID}`) return jsonResponse(current);
    if (url === '/api/photos/demo') return jsonResponse(photo({ id: DEMO_ID, name: 'Coffee Cup' }));
    if (url.startsWith('/api/photo-filters/available')) return jsonResponse([]);
    if (url === '/api/photo-filters/preview') {
      const body = JSON.parse(String(init?.body)) as { filterName: string; intensity: number };
      return jsonResponse({ previewUrl: `/render?f=${body.filterName}&i=${body.intensity}` });
    }
    if (url === '/api/photo-filters/apply') {
      const body = JSON.parse(String(init?.body)) as { filterName: string; intensity: number };
      current = photo({
        previewUrl: `/api/photos/${ID}/preview?v=b`,
        appliedFilter: { filterName: body.filterName, intensity: body.intensity },
      });
      return jsonResponse({ message: 'Filter applied', photo: current });
    }
    if (url === '/api/photo-filters/revert') {
      current = photo();
      return jsonResponse({ message: 'Original restored', photo: current });
    }
    return jsonResponse({ message: 'Not found' }, 404);
  });
  vi.stubGlobal('fetch', fetchMock);
  const qc = new QueryClient({
    defaultOptions: { queries: { queryFn: getQueryFn({ on401: 'throw' }), retry: false, staleTime: Infinity } },
  });
  const location = memoryLocation({ path });
  render(
    <QueryClientProvider client={qc}>
      <Router hook={location.hook}>
        <Suspense fallback={null}>
          <PhotoEditorPage />
        </Suspense>
      </Router>
      <ToastProbe />
    </QueryClientProvider>,
  );
  return {
    fetchMock,
    navigate: location.navigate,
    deleteElsewhere: () => (gone = true),
    applied: () => current.appliedFilter,
  };
}

async function flush() {
  for (let i = 0; i < 6; i++) await act(async () => vi.advanceTimersByTimeAsync(0));
}

async function chooseFilter(name: RegExp) {
  fireEvent.click(screen.getByRole('button', { name }));
  await act(async () => vi.advanceTimersByTimeAsync(400));
  await flush();
}

beforeEach(() => {
  vi.useFakeTimers();
  // The intensity slider measures its thumb.
  vi.stubGlobal(
    'ResizeObserver',
    class {
      observe() {}
      unobserve() {}
      disconnect() {}
    },
  );
});
afterEach(() => {
  act(() => dismissToast());
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('PhotoEditorPage', () => {
  it('loads the photo named in the address, shows its name and first 3 tags, and applies a filter', async () => {
    setup(`/photo-editor?photoId=${ID}`);
    expect(screen.getByRole('status')).toHaveTextContent('Loading photo...');
    await flush();
    expect(screen.getByRole('heading', { name: 'Fig in a Red Bowl' })).toBeInTheDocument();
    expect(screen.getByRole('list', { name: 'Tags' }).children).toHaveLength(3);
    expect(screen.getByRole('button', { name: 'Apply Filter' })).toBeDisabled();
    await chooseFilter(/^Vintage/);
    expect(screen.getByRole('slider', { name: 'Intensity' })).toHaveAttribute('aria-valuenow', '100');
    fireEvent.click(screen.getByRole('button', { name: 'Apply Filter' }));
    await flush();
    expect(screen.getByTestId('toast')).toHaveTextContent('Filter Applied');
    expect(screen.getByRole('button', { name: 'Revert to original' })).toBeInTheDocument();
  });

  it.each(['../auth/user', '..', '../../api/photos/summary', `${ID}/../../auth/user`, '%2e%2e'])(
    'a photoId that is no photo id (%s) asks the server for nothing outside that photo and says it was not found',
    async (id) => {
      const { fetchMock } = setup(`/photo-editor?photoId=${encodeURIComponent(id)}`);
      await flush();
      for (const [url] of fetchMock.mock.calls) {
        // Resolved as the browser would: a '..' segment climbs out of /api/photos/.
        const path = new URL(url, 'http://app.test').pathname;
        expect(
          path === '/api/photos' || path.startsWith('/api/photos/') || path.startsWith('/api/photo-filters/'),
        ).toBe(true);
        expect(url).not.toMatch(/\.\./);
      }
      expect(screen.getByRole('alert')).toHaveTextContent('Photo not found');
    },
  );

  it('an apply queued behind other users past REQUEST_WAIT_MS is waited for, not said to have failed', async () => {
    let answer!: () => void;
    setup(`/photo-editor?photoId=${ID}`, (url, init) =>
      url === '/api/photo-filters/apply'
        ? new Promise<Response>((resolve, reject) => {
            // The server renders it once the filter thread is free; a request given up on is aborted.
            answer = () => resolve(jsonResponse({ message: 'Filter applied', photo: photo() }));
            init?.signal?.addEventListener('abort', () => reject(new DOMException('Aborted', 'AbortError')));
          })
        : undefined,
    );
    await flush();
    await chooseFilter(/^Vintage/);
    fireEvent.click(screen.getByRole('button', { name: 'Apply Filter' }));
    await act(async () => vi.advanceTimersByTimeAsync(REQUEST_WAIT_MS + 5000));
    await flush();
    // Given up at 30 s, it said 'Filter Failed' while the server went on to make the edit.
    expect(screen.queryByTestId('toast')).toBeNull();
    answer();
    await flush();
    expect(screen.getByTestId('toast')).toHaveTextContent('Filter Applied');
  });

  it('a preview queued behind other users past REQUEST_WAIT_MS is waited for, not said to have failed', async () => {
    let answer!: () => void;
    setup(`/photo-editor?photoId=${ID}`, (url, init) =>
      url === '/api/photo-filters/preview'
        ? new Promise<Response>((resolve, reject) => {
            answer = () => resolve(jsonResponse({ previewUrl: '/api/photo-filters/render/late.jpg' }));
            init?.signal?.addEventListener('abort', () => reject(new DOMException('Aborted', 'AbortError')));
          })
        : undefined,
    );
    await flush();
    await chooseFilter(/^Vintage/);
    await act(async () => vi.advanceTimersByTimeAsync(REQUEST_WAIT_MS + 5000));
    await flush();
    // Given up at 30 s, it said the preview failed while the filter thread was still on it.
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.getByText('Generating preview...')).toBeInTheDocument();
    answer();
    await flush();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('an apply never answered (a dead connection) is given up after APPLY_WAIT_MS', async () => {
    setup(`/photo-editor?photoId=${ID}`, (url, init) =>
      url === '/api/photo-filters/apply'
        ? new Promise<Response>((_, reject) =>
            init?.signal?.addEventListener('abort', () => reject(new DOMException('Aborted', 'AbortError'))),
          )
        : undefined,
    );
    await flush();
    await chooseFilter(/^Vintage/);
    fireEvent.click(screen.getByRole('button', { name: 'Apply Filter' }));
    await act(async () => vi.advanceTimersByTimeAsync(APPLY_WAIT_MS - 1));
    expect(screen.getByRole('button', { name: 'Processing...' })).toBeInTheDocument();
    await act(async () => vi.advanceTimersByTimeAsync(1));
    await flush();
    expect(screen.getByTestId('toast')).toHaveTextContent('Filter Failed|Failed to apply filter. Please try again.');
  });

  it('a refused apply the user can act on says why (Storage full), a server fault gives the generic line', async () => {
    const full =
      'Storage full: your Free plan holds 1 GB of photos and 1 GB is used. Delete photos or upgrade your plan to upload more.';
    let status = 413;
    setup(`/photo-editor?photoId=${ID}`, (url) =>
      url === '/api/photo-filters/apply'
        ? jsonResponse({ message: status === 413 ? full : 'boom' }, status)
        : undefined,
    );
    await flush();
    await chooseFilter(/^Dramatic/);
    fireEvent.click(screen.getByRole('button', { name: 'Apply Filter' }));
    await flush();
    expect(screen.getByTestId('toast')).toHaveTextContent(`Filter Failed|${full}`);
    status = 500;
    fireEvent.click(screen.getByRole('button', { name: 'Apply Filter' }));
    await flush();
    expect(screen.getByTestId('toast')).toHaveTextContent('Filter Failed|Failed to apply filter. Please try again.');
  });

  it.each([
    [413, 'Storage full: your Free plan holds 1 GB of photos and 1 GB is used.', 'Filter Failed|Storage full'],
    [200, '', 'Filter Applied'],
  ])(
    'an apply still on its way when the editor is left (answer %i) still tells its outcome',
    async (status, message, toastText) => {
      let answer: (r: Response) => void = () => undefined;
      const { navigate } = setup(`/photo-editor?photoId=${ID}`, (url) =>
        url === '/api/photo-filters/apply' ? new Promise<Response>((resolve) => (answer = resolve)) : undefined,
      );
      await flush();
      await chooseFilter(/^Dramatic/);
      fireEvent.click(screen.getByRole('button', { name: 'Apply Filter' }));
      await flush();
      expect(screen.getByRole('button', { name: 'Processing...' })).toBeInTheDocument();
      // The user goes on to another photo (or back) while the server is still rendering.
      act(() => navigate('/photo-editor'));
      await flush();
      expect(screen.getByRole('heading', { name: 'Coffee Cup' })).toBeInTheDocument();
      answer(
        status === 200
          ? jsonResponse({
              message: 'Filter applied',
              photo: photo({ appliedFilter: { filterName: 'dramatic', intensity: 100 } }),
            })
          : jsonResponse({ message }, status),
      );
      await flush();
      expect(screen.getByTestId('toast')).toHaveTextContent(toastText);
    },
  );

  it('a preview the browser cannot load ends Generating preview... and says so, showing the photo instead', async () => {
    setup(`/photo-editor?photoId=${ID}`);
    await flush();
    await chooseFilter(/^Dramatic/);
    const image = screen.getByTestId('editor-image');
    expect(image).toHaveAttribute('src', '/render?f=dramatic&i=100');
    expect(screen.getByText('Generating preview...')).toBeInTheDocument();
    fireEvent.error(image);
    await flush();
    // No load ever came: the overlay stayed over the photo for good.
    expect(screen.queryByText('Generating preview...')).toBeNull();
    expect(screen.getByRole('alert')).toHaveTextContent('The preview could not be generated.');
    expect(image).toHaveAttribute('src', `/api/photos/${ID}/preview?v=a`);
    expect(image).toHaveAccessibleName('Fig in a Red Bowl');
    expect(screen.getByRole('button', { name: 'Apply Filter' })).toBeEnabled();
    // Another intensity is another preview, asked and shown as usual.
    fireEvent.keyDown(screen.getByRole('slider', { name: 'Intensity' }), { key: 'ArrowLeft' });
    await act(async () => vi.advanceTimersByTimeAsync(400));
    await flush();
    expect(image).toHaveAttribute('src', '/render?f=dramatic&i=90');
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it("'Generating preview...' is said in a status region that was already there (one added with its words is often not read)", async () => {
    setup(`/photo-editor?photoId=${ID}`, (url) =>
      url === '/api/photo-filters/preview' ? new Promise<Response>(() => undefined) : undefined,
    );
    await flush();
    const status = screen.getByRole('status');
    expect(status).toHaveTextContent('');
    fireEvent.click(screen.getByRole('button', { name: /^Vintage/ }));
    await act(async () => vi.advanceTimersByTimeAsync(400));
    await flush();
    expect(screen.getByRole('status')).toBe(status);
    expect(status).toHaveTextContent('Generating preview...');
  });

  it('back on the photo while its apply still runs, the editor says Processing... (not Apply Filter again)', async () => {
    let answer: (r: Response) => void = () => undefined;
    const { navigate, fetchMock } = setup(`/photo-editor?photoId=${ID}`, (url) =>
      url === '/api/photo-filters/apply' ? new Promise<Response>((resolve) => (answer = resolve)) : undefined,
    );
    await flush();
    await chooseFilter(/^Dramatic/);
    fireEvent.click(screen.getByRole('button', { name: 'Apply Filter' }));
    await flush();
    act(() => navigate('/photo-editor'));
    await flush();
    expect(screen.getByRole('button', { name: 'Apply Filter' })).toBeInTheDocument();
    act(() => navigate(`/photo-editor?photoId=${ID}`));
    await flush();
    const busy = screen.getByRole('button', { name: 'Processing...' });
    expect(busy).toHaveAttribute('aria-disabled', 'true');
    answer(
      jsonResponse({
        message: 'Filter applied',
        photo: photo({ appliedFilter: { filterName: 'dramatic', intensity: 100 } }),
      }),
    );
    await flush();
    expect(screen.getByTestId('toast')).toHaveTextContent('Filter Applied');
    expect(fetchMock.mock.calls.filter(([url]) => url === '/api/photo-filters/apply')).toHaveLength(1);
    expect(screen.getByRole('button', { name: 'Apply Filter' })).not.toHaveAttribute('aria-disabled');
  });

  it('Revert pressed while an apply is still on its way is refused (the apply landing after it kept the edit)', async () => {
    let answer: (r: Response) => void = () => undefined;
    const { fetchMock } = setup(`/photo-editor?photoId=${ID}`, (url) => {
      if (url === `/api/photos/${ID}`)
        return jsonResponse(photo({ appliedFilter: { filterName: 'vintage', intensity: 100 } }));
      if (url === '/api/photo-filters/apply') return new Promise<Response>((resolve) => (answer = resolve));
      return undefined;
    });
    await flush();
    await chooseFilter(/^Dramatic/);
    fireEvent.click(screen.getByRole('button', { name: 'Apply Filter' }));
    await flush();
    const revert = screen.getByRole('button', { name: 'Revert to original' });
    expect(revert).toHaveAttribute('aria-disabled', 'true');
    fireEvent.click(revert);
    await flush();
    expect(fetchMock.mock.calls.some(([url]) => url === '/api/photo-filters/revert')).toBe(false);
    answer(
      jsonResponse({
        message: 'Filter applied',
        photo: photo({ appliedFilter: { filterName: 'dramatic', intensity: 100 } }),
      }),
    );
    await flush();
    expect(screen.getByRole('button', { name: 'Revert to original' })).not.toHaveAttribute('aria-disabled');
  });

  it('a refresh of the photo that fails after an apply (a server restarting) keeps the editor, not Photo not found', async () => {
    let applied = false;
    setup(`/photo-editor?photoId=${ID}`, (url, init) => {
      if (url === '/api/photo-filters/apply') applied = true;
      if (applied && url === `/api/photos/${ID}` && !init?.method)
        return jsonResponse({ message: 'Service temporarily unavailable.' }, 503);
      return undefined;
    });
    await flush();
    await chooseFilter(/^Vintage/);
    fireEvent.click(screen.getByRole('button', { name: 'Apply Filter' }));
    await flush();
    expect(screen.getByTestId('toast')).toHaveTextContent('Filter Applied');
    expect(screen.getByRole('heading', { name: 'Fig in a Red Bowl' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Apply Filter' })).toBeInTheDocument();
    expect(screen.queryByText('Photo not found')).toBeNull();
    // The photo as the apply answered it: edited, so it can be reverted (the failed refresh kept
    // the photo from before the apply, and with it no Revert button for the edit just made).
    expect(screen.getByRole('button', { name: 'Revert to original' })).toBeInTheDocument();
    expect(screen.getByTestId('editor-image')).toHaveAttribute('src', '/render?f=vintage&i=100');
  });

  it('a photo deleted in another tab: Apply says it is gone and the screen shows Photo not found', async () => {
    const { deleteElsewhere } = setup(`/photo-editor?photoId=${ID}`);
    await flush();
    await chooseFilter(/^Vibrant/);
    deleteElsewhere();
    fireEvent.click(screen.getByRole('button', { name: 'Apply Filter' }));
    await flush();
    expect(screen.getByTestId('toast')).toHaveTextContent('Filter Failed|Photo not found.');
    expect(screen.getByRole('alert')).toHaveTextContent('Photo not found');
    expect(screen.queryByRole('button', { name: 'Apply Filter' })).toBeNull();
  });

  it('a photo deleted in another tab: a new preview refused as not found shows Photo not found', async () => {
    const { deleteElsewhere } = setup(`/photo-editor?photoId=${ID}`);
    await flush();
    deleteElsewhere();
    await chooseFilter(/^Golden Hour/);
    await flush();
    expect(screen.getByRole('alert')).toHaveTextContent('Photo not found');
    expect(screen.queryByRole('button', { name: 'Apply Filter' })).toBeNull();
  });

  it('a photo the server answers not found says Photo not found, with nothing to try again', async () => {
    setup(`/photo-editor?photoId=${ID}`, (url) =>
      url === `/api/photos/${ID}` ? jsonResponse({ message: 'Photo not found.' }, 404) : undefined,
    );
    await flush();
    expect(screen.getByRole('alert')).toHaveTextContent('Photo not found');
    expect(screen.queryByRole('button', { name: 'Try again' })).toBeNull();
  });

  it.each([
    [
      'a server fault',
      () => jsonResponse({ message: 'Service temporarily unavailable.' }, 503),
      'Service temporarily unavailable.',
    ],
    [
      "a proxy's error page",
      () => new Response('<html><body>502 Bad Gateway</body></html>', { status: 502 }),
      'This photo could not be loaded.',
    ],
    [
      'a dropped connection',
      () => Promise.reject(new TypeError('Failed to fetch')),
      'Network error. Please try again.',
    ],
  ])(
    'a first read of the photo failed by %s says why and offers Try again, not Photo not found',
    async (_, fail, said) => {
      let failing = true;
      setup(`/photo-editor?photoId=${ID}`, (url) => (failing && url === `/api/photos/${ID}` ? fail() : undefined));
      await flush();
      expect(screen.getByRole('alert')).toHaveTextContent(said);
      expect(screen.queryByText('Photo not found')).toBeNull();
      failing = false;
      const retry = screen.getByRole('button', { name: 'Try again' });
      retry.focus();
      fireEvent.click(retry);
      await flush();
      expect(screen.getByRole('heading', { name: 'Fig in a Red Bowl' })).toBeInTheDocument();
      // The button went with the failure: focus goes to the screen's heading, not to the page.
      expect(document.activeElement).toBe(screen.getByRole('heading', { name: 'Photo Editor' }));
    },
  );

  it('a first read of the photo never answered is given up after READ_WAIT_MS with Try again', async () => {
    let hold = true;
    setup(`/photo-editor?photoId=${ID}`, (url, init) =>
      hold && url === `/api/photos/${ID}`
        ? new Promise<Response>((_, reject) =>
            init?.signal?.addEventListener('abort', () => reject(new DOMException('Aborted', 'AbortError'))),
          )
        : undefined,
    );
    await flush();
    expect(screen.getByRole('status')).toHaveTextContent('Loading photo...');
    await act(async () => vi.advanceTimersByTimeAsync(READ_WAIT_MS));
    await flush();
    expect(screen.getByRole('alert')).toHaveTextContent('Network error. Please try again.');
    expect(screen.queryByText('Photo not found')).toBeNull();
    hold = false;
    fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    await flush();
    expect(screen.getByRole('heading', { name: 'Fig in a Red Bowl' })).toBeInTheDocument();
  });

  it('revert: the original comes back and focus moves to the filters, not lost with the Revert button', async () => {
    const { applied } = setup(`/photo-editor?photoId=${ID}`);
    await flush();
    await chooseFilter(/^Classic B&W/);
    fireEvent.click(screen.getByRole('button', { name: 'Apply Filter' }));
    await flush();
    expect(applied()).toEqual({ filterName: 'black_white', intensity: 100 });
    const revert = screen.getByRole('button', { name: 'Revert to original' });
    revert.focus();
    fireEvent.click(revert);
    await flush();
    expect(screen.getByTestId('toast')).toHaveTextContent('Original restored');
    expect(screen.queryByRole('button', { name: 'Revert to original' })).toBeNull();
    expect(screen.getByTestId('editor-image')).toHaveAttribute('src', `/api/photos/${ID}/preview?v=a`);
    expect(document.activeElement).toBe(screen.getByRole('button', { name: /^Vintage/ }));
  });

  it('another photo opened in the editor (back or forward) starts with no filter chosen', async () => {
    const { navigate } = setup(`/photo-editor?photoId=${ID}`);
    await flush();
    await chooseFilter(/^Soft Portrait/);
    expect(screen.getByRole('slider', { name: 'Intensity' })).toBeInTheDocument();
    act(() => navigate('/photo-editor'));
    await flush();
    expect(screen.getByRole('heading', { name: 'Coffee Cup' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: /^Soft Portrait/ })).toHaveAttribute('aria-pressed', 'false');
    expect(screen.queryByRole('slider')).toBeNull();
    expect(screen.getByRole('button', { name: 'Apply Filter' })).toBeDisabled();
  });
});
