// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { getQueryFn } from '../../lib/api';
import { DuplicatesView } from './duplicates-view';
import { duplicatesQueryOptions } from './photos-query';
import { testPhoto as photo } from './test-photos';

const TOO_MANY = 'Too many requests. Please wait a moment.';

beforeEach(() => {
  vi.stubGlobal(
    'ResizeObserver',
    class {
      observe() {}
      disconnect() {}
    },
  );
});
afterEach(() => vi.unstubAllGlobals());

function renderAlbum() {
  const qc = new QueryClient({
    defaultOptions: { queries: { queryFn: getQueryFn({ on401: 'throw' }), retry: false, staleTime: Infinity } },
  });
  const location = memoryLocation({ path: '/gallery?album=duplicates' });
  render(
    <QueryClientProvider client={qc}>
      <Router hook={location.hook} searchHook={location.searchHook}>
        <DuplicatesView />
      </Router>
    </QueryClientProvider>,
  );
  return qc;
}

describe('the Possible duplicates album', () => {
  it('keeps its photos when a refresh is refused, says so under them and offers to ask again', async () => {
    let refused = false;
    const group = [photo('p1', 'Beach'), photo('p2', 'Beach copy')];
    vi.stubGlobal(
      'fetch',
      vi.fn(async () =>
        refused
          ? new Response(JSON.stringify({ message: TOO_MANY }), { status: 429 })
          : new Response(JSON.stringify({ name: 'Possible duplicates', groups: [group], photoCount: 2 })),
      ),
    );
    const qc = renderAlbum();
    expect(await screen.findByRole('button', { name: 'Open Beach copy' }, { timeout: 10_000 })).toBeInTheDocument();
    // A photo deleted elsewhere refreshes the album; the server refuses (its per-user limit).
    refused = true;
    await act(() => qc.invalidateQueries({ queryKey: duplicatesQueryOptions().queryKey }));
    expect(await screen.findByRole('alert')).toHaveTextContent(`Could not refresh this album. ${TOO_MANY}`);
    // The photos stay: the alert alone in their place, under '2 photos in 1 group', hid them.
    expect(screen.getByRole('button', { name: 'Open Beach' })).toBeInTheDocument();
    refused = false;
    await userEvent.setup().click(screen.getByRole('button', { name: 'Try again' }));
    await waitFor(() => expect(screen.queryByRole('alert')).toBeNull());
    expect(screen.getByRole('button', { name: 'Open Beach copy' })).toBeInTheDocument();
    // The pressed button went: focus is on the album's title.
    expect(screen.getByRole('heading', { name: 'Possible duplicates' })).toHaveFocus();
  });

  it('a first read refused says why and offers Try again, and focus goes to the title once answered', async () => {
    let refused = true;
    const group = [photo('p1', 'Beach'), photo('p2', 'Beach copy')];
    vi.stubGlobal(
      'fetch',
      vi.fn(async () =>
        refused
          ? new Response('<html><body>502 Bad Gateway</body></html>', { status: 502 })
          : new Response(JSON.stringify({ name: 'Possible duplicates', groups: [group], photoCount: 2 })),
      ),
    );
    renderAlbum();
    expect(await screen.findByRole('alert', {}, { timeout: 10_000 })).toHaveTextContent(
      'Could not look for duplicates.',
    );
    refused = false;
    await userEvent.setup().click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('button', { name: 'Open Beach copy' })).toBeInTheDocument();
    expect(screen.queryByRole('alert')).toBeNull();
    await waitFor(() => expect(screen.getByRole('heading', { name: 'Possible duplicates' })).toHaveFocus());
  });

  it('a refresh asked again leaves focus where the user took it meanwhile', async () => {
    let refused = false;
    let answerNow: () => void = () => {};
    const group = [photo('p1', 'Beach'), photo('p2', 'Beach copy')];
    const album = () => new Response(JSON.stringify({ name: 'Possible duplicates', groups: [group], photoCount: 2 }));
    vi.stubGlobal(
      'fetch',
      vi.fn(() =>
        refused
          ? Promise.resolve(new Response(JSON.stringify({ message: TOO_MANY }), { status: 429 }))
          : new Promise<Response>((resolve) => (answerNow = () => resolve(album()))),
      ),
    );
    const qc = renderAlbum();
    await waitFor(() => answerNow());
    expect(await screen.findByRole('button', { name: 'Open Beach copy' }, { timeout: 10_000 })).toBeInTheDocument();
    refused = true;
    await act(() => qc.invalidateQueries({ queryKey: duplicatesQueryOptions().queryKey }));
    await screen.findByRole('alert');
    refused = false;
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    // While the answer is on its way, the user goes on (by keyboard) to the first photo.
    const beach = screen.getByRole('button', { name: 'Open Beach' });
    act(() => beach.focus());
    act(() => answerNow());
    await waitFor(() => expect(screen.queryByRole('alert')).toBeNull());
    expect(beach).toHaveFocus();
    expect(screen.getByRole('heading', { name: 'Possible duplicates' })).not.toHaveFocus();
  });
});
