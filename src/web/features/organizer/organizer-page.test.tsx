// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, render, screen, within } from '@testing-library/react';
import { getQueryFn, READ_WAIT_MS } from '../../lib/api';
import { dismissToast, useToasts } from '../../lib/toast';
import OrganizerPage from './organizer-page';

function jsonResponse(body: unknown, status = 200) {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

const photo = (i: number, over: Record<string, unknown> = {}) => ({
  id: `p${i}`,
  name: `Photo ${i}`,
  url: `/u${i}`,
  thumbnailUrl: `/t${i}`,
  previewUrl: `/v${i}`,
  uploadedAt: '2025-03-01T10:00:00Z',
  takenAt: null,
  size: 1,
  width: 1,
  height: 1,
  thumbhash: null,
  analyzed: true,
  category: 'food_drink',
  tags: ['cup', 'brown', 'indoor'],
  description: 'Food and drink',
  albumId: null,
  isDemo: true,
  favorite: false,
  ...over,
});

const TOO_MANY = 'Too many attempts. Please wait 5 minute(s) and try again.';

function ToastProbe() {
  const t = useToasts().message;
  return t ? <div data-testid="toast">{`${t.title}|${t.description ?? ''}`}</div> : null;
}

function setup(opts: {
  photos: unknown[];
  status: unknown;
  analyzeFails?: boolean;
  summary?: unknown;
  albumRefusal?: { status: number; message: string };
  /** Every request fails as a lost connection does. */
  offline?: boolean;
  /** `GET /api/photos` goes unanswered (a dead connection) while this says so. */
  photosUnanswered?: () => boolean;
  /** The server's photos per category, newest first, as `GET /api/photos/timeline?category=` pages them. */
  categories?: Record<string, unknown[]>;
  /** A category's pages are refused (a server restarting) while this says so. */
  categoriesRefused?: () => boolean;
}) {
  let status = opts.status;
  let refused = false;
  let albumsRefused = false;
  const made: unknown[] = [];
  let photos = opts.photos;
  const fetchMock = vi.fn(async (url: string, init?: RequestInit) => {
    if (opts.offline) throw new TypeError('Failed to fetch');
    if (url === '/api/photos' && opts.photosUnanswered?.())
      return new Promise<Response>((_, reject) =>
        init?.signal?.addEventListener('abort', () => reject(new DOMException('Aborted', 'AbortError'))),
      );
    if (url === '/api/photos') return jsonResponse(photos);
    if (url.startsWith('/api/photos/timeline?') && opts.categoriesRefused?.())
      return jsonResponse({ message: 'Service temporarily unavailable.' }, 503);
    if (url.startsWith('/api/photos/timeline?')) {
      const qs = new URL(url, 'http://x').searchParams;
      const all = opts.categories?.[qs.get('category') ?? ''] ?? [];
      const from = Number(qs.get('cursor') ?? 0);
      const to = from + Number(qs.get('limit'));
      return jsonResponse({
        items: all.slice(from, to),
        nextCursor: to < all.length ? String(to) : null,
        total: qs.get('cursor') ? null : all.length,
      });
    }
    if (url === '/api/photos/summary' && opts.summary) return jsonResponse(opts.summary);
    if (url === '/api/photos/analysis-status' && refused) return jsonResponse({ message: TOO_MANY }, 429);
    if (url === '/api/photos/analysis-status') return jsonResponse(status);
    if (url === '/api/albums' && init?.method === 'POST' && opts.albumRefusal) {
      return jsonResponse({ message: opts.albumRefusal.message }, opts.albumRefusal.status);
    }
    if (url === '/api/albums' && init?.method === 'POST') {
      const body = JSON.parse(String(init.body)) as { name: string; photoIds: string[] };
      const album = { id: 'a1', name: body.name, description: '', isSmartAlbum: false, photoCount: 2, createdAt: '' };
      made.push(album);
      return jsonResponse(album, 201);
    }
    if (url === '/api/albums' && albumsRefused) return jsonResponse({ message: TOO_MANY }, 429);
    if (url === '/api/albums') return jsonResponse(made);
    if (url === '/api/photos/analyze-all') {
      if (opts.analyzeFails) return jsonResponse({ message: 'boom' }, 500);
      status = { total: 2, analyzed: 0, pending: 2 };
      return jsonResponse({ queued: 2, status });
    }
    return jsonResponse({});
  });
  vi.stubGlobal('fetch', fetchMock);
  const qc = new QueryClient({
    // As the app's (createQueryClient): an answer is kept until something asks for it again.
    defaultOptions: { queries: { queryFn: getQueryFn({ on401: 'throw' }), retry: false, staleTime: Infinity } },
  });
  render(
    <QueryClientProvider client={qc}>
      <OrganizerPage />
      <ToastProbe />
    </QueryClientProvider>,
  );
  return {
    fetchMock,
    qc,
    finish: () => (status = { total: 2, analyzed: 2, pending: 0 }),
    refuse: (on: boolean) => (refused = on),
    /** `GET /api/albums` is refused (the per-user limit) while on. */
    refuseAlbums: (on: boolean) => (albumsRefused = on),
    /** What the server lists from now on (a photo deleted in another tab). */
    setPhotos: (next: unknown[]) => (photos = next),
  };
}

async function flush() {
  for (let i = 0; i < 5; i++) await act(async () => vi.advanceTimersByTimeAsync(0));
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => {
  act(() => dismissToast());
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('OrganizerPage', () => {
  it('analyses, polls every 2 s while pending, then shows the done state and Analysis Complete', async () => {
    const { fetchMock, finish } = setup({
      photos: [
        photo(1, { analyzed: false, category: null, tags: [] }),
        photo(2, { analyzed: false, category: null, tags: [] }),
      ],
      status: { total: 2, analyzed: 0, pending: 0 },
    });
    await flush();
    expect(screen.getByRole('heading', { name: 'Photo Organizer' })).toBeInTheDocument();
    expect(screen.getByText('AI-powered photo organization')).toBeInTheDocument();
    expect(screen.getByText('0/2 analyzed')).toBeInTheDocument();
    expect(screen.getByText('2 photos need AI analysis for smart organization.')).toBeInTheDocument();

    fireEvent.click(screen.getByRole('button', { name: 'Analyze Photos' }));
    await flush();
    expect(screen.getByRole('button', { name: 'Analyzing...' })).toHaveAttribute('aria-disabled', 'true');
    const polls = () => fetchMock.mock.calls.filter(([u]) => u === '/api/photos/analysis-status').length;
    const before = polls();
    await act(async () => vi.advanceTimersByTimeAsync(2100));
    expect(polls()).toBe(before + 1);

    finish();
    await act(async () => vi.advanceTimersByTimeAsync(2100));
    await flush();
    expect(screen.getByText('All photos analyzed! Smart albums are available.')).toBeInTheDocument();
    expect(screen.getByTestId('toast')).toHaveTextContent('Analysis Complete');
    const after = polls();
    await act(async () => vi.advanceTimersByTimeAsync(10_000));
    expect(polls()).toBe(after); // no polling once nothing is pending
  });

  it('a count read before Analyze Photos and answered after it does not end the run as Analysis Complete', async () => {
    const { fetchMock, qc } = setup({
      photos: [
        photo(1, { analyzed: false, category: null, tags: [] }),
        photo(2, { analyzed: false, category: null, tags: [] }),
      ],
      status: { total: 2, analyzed: 0, pending: 0 },
    });
    await flush();
    // An upload ending elsewhere asks for the count again; the server reads it (nothing pending)
    // before the Analyze Photos, and its answer arrives after the Analyze Photos' own.
    const server = fetchMock.getMockImplementation()!;
    let release = () => {};
    fetchMock.mockImplementationOnce(async (url: string, init?: RequestInit) => {
      const read = await server(url, init);
      await new Promise<void>((resolve) => (release = resolve));
      return read;
    });
    act(() => void qc.invalidateQueries({ queryKey: ['/api/photos/analysis-status'] }));
    await flush();
    fireEvent.click(screen.getByRole('button', { name: 'Analyze Photos' }));
    await flush();
    expect(screen.getByRole('button', { name: 'Analyzing...' })).toBeInTheDocument();

    act(() => release());
    await flush();
    expect(screen.queryByTestId('toast')).toBeNull();
    expect(screen.getByRole('button', { name: 'Analyzing...' })).toHaveAttribute('aria-disabled', 'true');
    expect(screen.queryByText('All photos analyzed! Smart albums are available.')).toBeNull();
  });

  it('a refused poll (429) keeps the counts and the run, says why, and waits 30 s before asking again', async () => {
    const { fetchMock, finish, refuse } = setup({
      photos: [
        photo(1, { analyzed: false, category: null, tags: [] }),
        photo(2, { analyzed: false, category: null, tags: [] }),
      ],
      status: { total: 2, analyzed: 0, pending: 0 },
    });
    await flush();
    fireEvent.click(screen.getByRole('button', { name: 'Analyze Photos' }));
    await flush();
    const polls = () => fetchMock.mock.calls.filter(([u]) => u === '/api/photos/analysis-status').length;
    refuse(true);
    await act(async () => vi.advanceTimersByTimeAsync(2100));
    await flush();
    const refusedAt = polls();
    expect(screen.getByRole('status')).toHaveTextContent(TOO_MANY);
    expect(screen.getByText('0/2 analyzed')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Analyzing...' })).toHaveAttribute('aria-disabled', 'true');
    // Not every 2 s into a limit that refuses them all.
    await act(async () => vi.advanceTimersByTimeAsync(20_000));
    expect(polls()).toBe(refusedAt);

    refuse(false);
    finish();
    await act(async () => vi.advanceTimersByTimeAsync(10_100));
    await flush();
    expect(polls()).toBe(refusedAt + 1);
    expect(screen.queryByRole('status')).toBeNull();
    expect(screen.getByText('2/2 analyzed')).toBeInTheDocument();
    expect(screen.getByTestId('toast')).toHaveTextContent('Analysis Complete');
  });

  it('shows the server\'s message, not "No albums yet", when the album list is refused', async () => {
    const { fetchMock } = setup({ photos: [photo(1)], status: { total: 1, analyzed: 1, pending: 0 } });
    const answer = fetchMock.getMockImplementation()!;
    fetchMock.mockImplementation(async (url: string, init?: RequestInit) =>
      url === '/api/albums' ? jsonResponse({ message: TOO_MANY }, 429) : answer(url, init),
    );
    fireEvent.mouseDown(screen.getByRole('tab', { name: 'Albums' }));
    await flush();
    expect(screen.getByRole('alert')).toHaveTextContent(TOO_MANY);
    expect(screen.queryByText('No albums yet')).toBeNull();
    // Try again asks once more; its answer replaces the refusal, and focus goes where it is shown.
    fetchMock.mockImplementation(answer);
    const tryAgain = screen.getByRole('button', { name: 'Try again' });
    tryAgain.focus();
    fireEvent.click(tryAgain);
    await flush();
    expect(screen.queryByRole('alert')).toBeNull();
    const empty = screen.getByText('No albums yet');
    expect(document.activeElement).not.toBe(document.body);
    expect(document.activeElement).toContainElement(empty);
  });

  it('shows Analysis Failed when the request fails', async () => {
    setup({
      photos: [photo(1, { analyzed: false })],
      status: { total: 1, analyzed: 0, pending: 0 },
      analyzeFails: true,
    });
    await flush();
    fireEvent.click(screen.getByRole('button', { name: 'Analyze Photos' }));
    await flush();
    expect(screen.getByTestId('toast')).toHaveTextContent(
      'Analysis Failed|Failed to analyze photos. Please try again.',
    );
  });

  it('creates an album from selected photos: blank name refused, then name and selection cleared', async () => {
    const { fetchMock } = setup({
      photos: [photo(1), photo(2), photo(3)],
      status: { total: 3, analyzed: 3, pending: 0 },
    });
    await flush();
    expect(screen.getByText('All photos analyzed! Smart albums are available.')).toBeInTheDocument();
    const grid = screen.getByRole('list', { name: 'Photos' });
    expect(within(grid).getAllByText('AI')).toHaveLength(3);
    expect(within(grid).getAllByText('cup')).toHaveLength(3);
    expect(within(grid).queryByText('indoor')).toBeNull(); // only the first 2 tags
    // Read out too: the button's name (Select ...) stands for its content.
    expect(screen.getByRole('button', { name: 'Select Photo 1' })).toHaveAccessibleDescription('AI cup brown');

    fireEvent.click(screen.getByRole('button', { name: 'Select Photo 1' }));
    expect(screen.getByText('1 photos selected')).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: 'Create Album' }));
    await flush();
    expect(screen.getByTestId('toast')).toHaveTextContent('Invalid Input|Please enter album name and select photos.');
    act(() => dismissToast());
    // A name of a zero-width space alone is as blank as no name.
    fireEvent.change(screen.getByLabelText('Album name'), { target: { value: '\u200b' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create Album' }));
    await flush();
    expect(screen.getByTestId('toast')).toHaveTextContent('Invalid Input|Please enter album name and select photos.');
    expect(fetchMock.mock.calls.some(([u, i]) => u === '/api/albums' && i?.method === 'POST')).toBe(false);

    fireEvent.click(screen.getByRole('button', { name: 'Select Photo 2' }));
    fireEvent.change(screen.getByLabelText('Album name'), { target: { value: 'Trip' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create Album' }));
    await flush();
    const post = fetchMock.mock.calls.find(([u, i]) => u === '/api/albums' && i?.method === 'POST');
    expect(JSON.parse(String(post?.[1]?.body))).toEqual({
      name: 'Trip',
      description: 'Album with 2 photos',
      photoIds: ['p1', 'p2'],
    });
    expect(screen.getByTestId('toast')).toHaveTextContent('Album Created');
    expect(screen.queryByText(/photos selected/)).toBeNull();
    expect(screen.getByRole('button', { name: 'Select Photo 1' })).toHaveAttribute('aria-pressed', 'false');
  });

  it.each([
    [409, 'You already have 190 albums, the most one account can keep.', 'You already have 190 albums'],
    [500, 'boom', 'Failed to create album. Please try again.'],
  ])(
    'a refused album (%i) keeps the selection and says why only when the user can act on it',
    async (status, message, shown) => {
      setup({
        photos: [photo(1), photo(2)],
        status: { total: 2, analyzed: 2, pending: 0 },
        albumRefusal: { status, message },
      });
      await flush();
      fireEvent.click(screen.getByRole('button', { name: 'Select Photo 1' }));
      fireEvent.change(screen.getByLabelText('Album name'), { target: { value: 'Trip' } });
      fireEvent.click(screen.getByRole('button', { name: 'Create Album' }));
      await flush();
      expect(screen.getByTestId('toast')).toHaveTextContent(`Error|${shown}`);
      expect(screen.getByText('1 photos selected')).toBeInTheDocument();
    },
  );

  // A Create Album whose answer was lost and pressed again made the album twice: the retry now
  // carries the first press's Idempotency-Key, so the server answers the album it made.
  it('a Create Album pressed again after a lost answer sends the same Idempotency-Key; the next album a new one', async () => {
    const { fetchMock } = setup({ photos: [photo(1), photo(2)], status: { total: 2, analyzed: 2, pending: 0 } });
    const answer = fetchMock.getMockImplementation()!;
    let lose = true;
    fetchMock.mockImplementation(async (url: string, init?: RequestInit) => {
      const reply = await answer(url, init);
      // The server made the album; its answer never arrived.
      if (url === '/api/albums' && init?.method === 'POST' && lose) throw new TypeError('Failed to fetch');
      return reply;
    });
    const keys = () =>
      fetchMock.mock.calls
        .filter(([u, i]) => u === '/api/albums' && i?.method === 'POST')
        .map(([, i]) => (i?.headers as Record<string, string>)['Idempotency-Key']);
    await flush();
    const createTrip = async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Select Photo 1' }));
      fireEvent.change(screen.getByLabelText('Album name'), { target: { value: 'Trip' } });
      fireEvent.click(screen.getByRole('button', { name: 'Create Album' }));
      await flush();
    };
    await createTrip();
    expect(screen.getByTestId('toast')).toHaveTextContent('Error|Failed to create album. Please try again.');
    act(() => dismissToast());
    lose = false;
    fireEvent.click(screen.getByRole('button', { name: 'Create Album' }));
    await flush();
    expect(screen.getByTestId('toast')).toHaveTextContent('Album Created|"Trip" was created.');
    const [first, retry] = keys();
    expect(first).toMatch(/^[0-9a-f]{32}$/);
    expect(retry).toBe(first);

    // Another album of the same name and photos, made on purpose: a new key.
    act(() => dismissToast());
    await createTrip();
    expect(screen.getByTestId('toast')).toHaveTextContent('Album Created');
    expect(keys()[2]).not.toBe(first);
  });

  it('groups categories with spaces, counts them and offers View All beyond 4', async () => {
    const foodPhotos = [1, 2, 3, 4, 5].map((i) => photo(i));
    setup({
      photos: foodPhotos.concat([photo(6, { category: 'nature_landscape' })]),
      status: { total: 6, analyzed: 6, pending: 0 },
      categories: { food_drink: foodPhotos },
    });
    await flush();
    fireEvent.mouseDown(screen.getByRole('tab', { name: 'Categories' }));
    await flush();
    const food = screen.getByRole('region', { name: 'food drink' });
    expect(within(food).getByText('5')).toBeInTheDocument();
    expect(within(food).getAllByRole('img')).toHaveLength(4);
    fireEvent.click(within(food).getByRole('button', { name: 'View All 5 Photos' }));
    await flush();
    expect(within(food).getAllByRole('img')).toHaveLength(5);
    expect(screen.getByRole('region', { name: 'nature landscape' })).toBeInTheDocument();
    expect(screen.queryByText(/_/)).toBeNull();
  });

  it('counts categories over the whole library from the summary, not only the loaded photos', async () => {
    setup({
      photos: [1, 2].map((i) => photo(i)),
      status: { total: 900, analyzed: 900, pending: 0 },
      summary: {
        total: 900,
        analyzed: 900,
        organized: 880,
        categories: [
          { category: 'food_drink', count: 600 },
          { category: 'animals', count: 300 },
        ],
      },
    });
    await flush();
    fireEvent.mouseDown(screen.getByRole('tab', { name: 'Categories' }));
    await flush();
    const food = screen.getByRole('region', { name: 'food drink' });
    expect(within(food).getByText('600')).toBeInTheDocument();
    expect(within(food).getByRole('button', { name: 'View All 600 Photos' })).toBeInTheDocument();
    expect(within(screen.getByRole('region', { name: 'animals' })).getByText('300')).toBeInTheDocument();
  });

  it("after Create Album the library's counts are asked again (Photos Organized counts photos in an album)", async () => {
    const { fetchMock } = setup({
      photos: [photo(1, { analyzed: false, category: null })],
      status: { total: 1, analyzed: 0, pending: 0 },
      summary: { total: 1, analyzed: 0, organized: 0, categories: [] },
    });
    await flush();
    const asked = (url: string) => fetchMock.mock.calls.filter(([u, i]) => u === url && !i?.method).length;
    // The Albums tab asks for the Possible duplicates album (a costly search of the library).
    fireEvent.mouseDown(screen.getByRole('tab', { name: 'Albums' }));
    await flush();
    fireEvent.mouseDown(screen.getByRole('tab', { name: 'Photos' }));
    await flush();
    const before = { summary: asked('/api/photos/summary'), list: asked('/api/photos') };
    const duplicates = asked('/api/photos/duplicates');
    expect(duplicates).toBe(1);
    fireEvent.click(screen.getByRole('button', { name: 'Select Photo 1' }));
    fireEvent.change(screen.getByLabelText('Album name'), { target: { value: 'Trip' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create Album' }));
    await flush();
    expect(screen.getByTestId('toast')).toHaveTextContent('Album Created');
    expect(asked('/api/photos/summary')).toBeGreaterThan(before.summary);
    // The photos' albumId.
    expect(asked('/api/photos')).toBeGreaterThan(before.list);
    // An album changes no photo's likeness: the duplicates are not looked for again.
    fireEvent.mouseDown(screen.getByRole('tab', { name: 'Albums' }));
    await flush();
    expect(screen.getByRole('heading', { name: 'Trip' })).toBeInTheDocument();
    expect(asked('/api/photos/duplicates')).toBe(duplicates);
  });

  it('says so when the album list could not be refreshed, instead of showing the old list as if it were current', async () => {
    const { refuseAlbums } = setup({ photos: [photo(1), photo(2)], status: { total: 2, analyzed: 2, pending: 0 } });
    await flush();
    fireEvent.mouseDown(screen.getByRole('tab', { name: 'Albums' }));
    await flush();
    expect(screen.getByText('No albums yet')).toBeInTheDocument();
    refuseAlbums(true);
    fireEvent.mouseDown(screen.getByRole('tab', { name: 'Photos' }));
    await flush();
    fireEvent.click(screen.getByRole('button', { name: 'Select Photo 1' }));
    fireEvent.change(screen.getByLabelText('Album name'), { target: { value: 'Trip' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create Album' }));
    await flush();
    expect(screen.getByTestId('toast')).toHaveTextContent('Album Created');
    fireEvent.mouseDown(screen.getByRole('tab', { name: 'Albums' }));
    await flush();
    // 'Album Created', then 'No albums yet' with no word: the new album seemed lost.
    expect(screen.getByRole('alert')).toHaveTextContent(`Could not refresh your albums. ${TOO_MANY}`);
    refuseAlbums(false);
    // Pressed as a browser does: focus on the button first (fireEvent.click alone leaves it on the tab).
    const tryAgain = screen.getByRole('button', { name: 'Try again' });
    tryAgain.focus();
    fireEvent.click(tryAgain);
    await flush();
    expect(screen.getByRole('heading', { name: 'Trip' })).toBeInTheDocument();
    expect(screen.queryByRole('alert')).toBeNull();
    // The pressed button went: focus is on what it brought.
    expect(document.activeElement).toBe(screen.getByRole('list', { name: 'Albums' }));
  });

  it('after Create Album the form goes and focus moves to the photos, not to the page', async () => {
    setup({ photos: [photo(1), photo(2)], status: { total: 2, analyzed: 2, pending: 0 } });
    await flush();
    fireEvent.click(screen.getByRole('button', { name: 'Select Photo 2' }));
    fireEvent.change(screen.getByLabelText('Album name'), { target: { value: 'Trip' } });
    const create = screen.getByRole('button', { name: 'Create Album' });
    create.focus();
    fireEvent.click(create);
    await flush();
    expect(screen.getByTestId('toast')).toHaveTextContent('Album Created');
    expect(screen.queryByLabelText('Album name')).toBeNull();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Select Photo 1' }));
  });

  it('a selected photo deleted in another tab: the album is refused once, the photo leaves the list and the selection, and the rest can be saved', async () => {
    const { fetchMock, setPhotos } = setup({
      photos: [photo(1), photo(2), photo(3)],
      status: { total: 3, analyzed: 3, pending: 0 },
    });
    await flush();
    fireEvent.click(screen.getByRole('button', { name: 'Select Photo 1' }));
    fireEvent.click(screen.getByRole('button', { name: 'Select Photo 2' }));
    fireEvent.change(screen.getByLabelText('Album name'), { target: { value: 'Trip' } });
    setPhotos([photo(1), photo(3)]);
    const answer = fetchMock.getMockImplementation()!;
    fetchMock.mockImplementation(async (url: string, init?: RequestInit) => {
      const body = init?.method === 'POST' ? (JSON.parse(String(init.body)) as { photoIds: string[] }) : null;
      return url === '/api/albums' && body?.photoIds.includes('p2')
        ? jsonResponse({ message: 'Photo not found.' }, 404)
        : answer(url, init);
    });
    fireEvent.click(screen.getByRole('button', { name: 'Create Album' }));
    await flush();
    expect(screen.getByTestId('toast')).toHaveTextContent(
      'Error|A selected photo is no longer in your library. Your selection has been updated.',
    );
    expect(screen.queryByRole('button', { name: 'Select Photo 2' })).toBeNull();
    expect(screen.getByText('1 photos selected')).toBeInTheDocument();
    expect(screen.getByLabelText('Album name')).toHaveValue('Trip');

    fireEvent.click(screen.getByRole('button', { name: 'Create Album' }));
    await flush();
    expect(screen.getByTestId('toast')).toHaveTextContent('Album Created');
    const posts = fetchMock.mock.calls.filter(([u, i]) => u === '/api/albums' && i?.method === 'POST');
    expect(JSON.parse(String(posts.at(-1)?.[1]?.body))).toMatchObject({ photoIds: ['p1'] });
  });

  it("View All shows the category's photos and moves focus to them, not to the page", async () => {
    const foodPhotos = [1, 2, 3, 4, 5].map((i) => photo(i));
    setup({
      photos: foodPhotos,
      status: { total: 5, analyzed: 5, pending: 0 },
      categories: { food_drink: foodPhotos },
    });
    await flush();
    fireEvent.mouseDown(screen.getByRole('tab', { name: 'Categories' }));
    await flush();
    const food = screen.getByRole('region', { name: 'food drink' });
    const viewAll = within(food).getByRole('button', { name: 'View All 5 Photos' });
    viewAll.focus();
    fireEvent.click(viewAll);
    await flush();
    expect(within(food).queryByRole('button', { name: /View All/ })).toBeNull();
    const list = within(food).getByRole('list', { name: 'food drink photos' });
    expect(within(list).getAllByRole('img')).toHaveLength(5);
    expect(document.activeElement).toBe(list);
  });

  it('View All refused: says why, and Try again shows the photos and moves focus to them, not to the page', async () => {
    const foodPhotos = [1, 2, 3, 4, 5].map((i) => photo(i));
    let refused = true;
    setup({
      photos: foodPhotos,
      status: { total: 5, analyzed: 5, pending: 0 },
      categories: { food_drink: foodPhotos },
      categoriesRefused: () => refused,
    });
    await flush();
    fireEvent.mouseDown(screen.getByRole('tab', { name: 'Categories' }));
    await flush();
    const food = screen.getByRole('region', { name: 'food drink' });
    fireEvent.click(within(food).getByRole('button', { name: 'View All 5 Photos' }));
    await flush();
    expect(within(food).getByRole('alert')).toHaveTextContent('Service temporarily unavailable.');
    refused = false;
    const retry = within(food).getByRole('button', { name: 'Try again' });
    retry.focus();
    fireEvent.click(retry);
    await flush();
    expect(within(food).queryByRole('button', { name: 'Try again' })).toBeNull();
    const list = within(food).getByRole('list', { name: 'food drink photos' });
    expect(within(list).getAllByRole('img')).toHaveLength(5);
    expect(within(food).getByText('Showing 5 of 5 photos')).toBeInTheDocument();
    // The button went with the refusal; focus went with it to the page.
    expect(document.activeElement).toBe(list);
  });

  it('View All N Photos shows all N, page by page, though the plain list holds the newest 200 only', async () => {
    // 250 food photos: the newest 200 of the library are its plain list, 150 of them food.
    const food = Array.from({ length: 250 }, (_, i) => photo(i + 1));
    const { fetchMock } = setup({
      photos: food.slice(0, 150).concat(Array.from({ length: 50 }, (_, i) => photo(900 + i, { category: 'animals' }))),
      status: { total: 300, analyzed: 300, pending: 0 },
      summary: {
        total: 300,
        analyzed: 300,
        organized: 300,
        categories: [
          { category: 'food_drink', count: 250 },
          { category: 'animals', count: 50 },
        ],
      },
      categories: { food_drink: food },
    });
    await flush();
    fireEvent.mouseDown(screen.getByRole('tab', { name: 'Categories' }));
    await flush();
    const card = screen.getByRole('region', { name: 'food drink' });
    fireEvent.click(within(card).getByRole('button', { name: 'View All 250 Photos' }));
    await flush();
    const list = within(card).getByRole('list', { name: 'food drink photos' });
    expect(within(list).getAllByRole('img')).toHaveLength(100);
    expect(within(card).getByText('Showing 100 of 250 photos')).toBeInTheDocument();
    const more = within(card).getByRole('button', { name: 'Show more photos' });
    more.focus();
    fireEvent.click(more);
    await flush();
    expect(within(list).getAllByRole('img')).toHaveLength(200);
    fireEvent.click(within(card).getByRole('button', { name: 'Show more photos' }));
    await flush();
    const imgs = within(list).getAllByRole('img');
    expect(imgs).toHaveLength(250);
    expect(imgs.at(-1)).toHaveAccessibleName('Photo 250');
    expect(within(card).getByText('Showing 250 of 250 photos')).toBeInTheDocument();
    // The last page takes the button with it: focus goes back to the photos, not to the page.
    expect(within(card).queryByRole('button', { name: 'Show more photos' })).toBeNull();
    expect(document.activeElement).toBe(list);
    const asked = fetchMock.mock.calls.map(([u]) => String(u)).filter((u) => u.startsWith('/api/photos/timeline'));
    expect(asked).toEqual([
      '/api/photos/timeline?limit=100&category=food_drink',
      '/api/photos/timeline?limit=100&category=food_drink&cursor=100',
      '/api/photos/timeline?limit=100&category=food_drink&cursor=200',
    ]);
  });

  it('a category none of whose photos is among the newest 200 still shows its first thumbnails', async () => {
    setup({
      photos: [1, 2, 3, 4].map((i) => photo(i)),
      status: { total: 206, analyzed: 206, pending: 0 },
      summary: {
        total: 206,
        analyzed: 206,
        organized: 206,
        categories: [
          { category: 'food_drink', count: 200 },
          { category: 'animals', count: 6 },
        ],
      },
      categories: { animals: [1, 2, 3, 4, 5, 6].map((i) => photo(500 + i, { category: 'animals' })) },
    });
    await flush();
    fireEvent.mouseDown(screen.getByRole('tab', { name: 'Categories' }));
    await flush();
    const animals = screen.getByRole('region', { name: 'animals' });
    expect(
      within(animals)
        .getAllByRole('img')
        .map((i) => i.getAttribute('alt')),
    ).toEqual(['Photo 501', 'Photo 502', 'Photo 503', 'Photo 504']);
  });

  it('with neither the photos nor the status answered, claims no empty library and no finished analysis', async () => {
    setup({ photos: [], status: { total: 0, analyzed: 0, pending: 0 }, offline: true });
    await flush();
    expect(screen.getByRole('alert')).toHaveTextContent('Network error. Please try again.');
    expect(screen.queryByText('No photos yet')).toBeNull();
    expect(screen.queryByText('All photos analyzed! Smart albums are available.')).toBeNull();
  });

  it('a photo list never answered (a dead connection) says so after READ_WAIT_MS, and Try again asks again', async () => {
    let unanswered = true;
    setup({ photos: [photo(1)], status: { total: 1, analyzed: 1, pending: 0 }, photosUnanswered: () => unanswered });
    await flush();
    await act(async () => vi.advanceTimersByTimeAsync(READ_WAIT_MS - 1));
    expect(screen.queryByRole('alert')).toBeNull();
    // The failure's render comes on the scheduler's next turns.
    await act(async () => vi.advanceTimersByTimeAsync(100));
    expect(screen.getByRole('alert')).toHaveTextContent('Network error. Please try again.');
    unanswered = false;
    fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    await act(async () => vi.advanceTimersByTimeAsync(100));
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.getByRole('button', { name: /Photo 1/ })).toBeInTheDocument();
  });
});
