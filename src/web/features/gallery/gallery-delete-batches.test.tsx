// @vitest-environment jsdom
import type { Photo } from '@contract/photos';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { dismissAllToasts } from '../../lib/toast';
import { forgetAnswersOnAccountChange, useAuth } from '../auth';
import { galleryQueryClient, renderGallery, stubResizeObserver } from './test-gallery';
import { testPhoto as photo } from './test-photos';

// Two photos a request, so three selected go in two requests (the app's 200 and 201).
vi.mock('@contract/photos-manage-limits', () => ({ DELETE_PHOTOS_MAX: 2 }));

/** A selection larger than one delete request, whose second request fails. */

let library: Photo[];
let deletes: string[][];
let refreshRefused: boolean;
/**
 * How the second request ends: refused by the server, lost on the way back, answered by a proxy in
 * front of the server (its page, after the server deleted them), or its session gone.
 */
let second: 'refused' | 'lost' | Response | 'signed out';
let signedIn: boolean;
const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status });

beforeEach(() => {
  library = [photo('p1', 'Beach'), photo('p2', 'Forest'), photo('p3', 'Harbour'), photo('p4', 'Meadow')];
  deletes = [];
  refreshRefused = false;
  second = 'refused';
  signedIn = true;
  stubResizeObserver();
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      if (url === '/api/auth/user')
        return signedIn ? json({ user: { id: 'u1', firstName: 'Ada' } }) : json({ message: 'Not signed in' }, 401);
      if (url === '/api/photos/delete') {
        const { ids } = JSON.parse(init!.body as string) as { ids: string[] };
        deletes.push(ids);
        if (deletes.length > 1 && second === 'signed out') {
          signedIn = false;
          return json({ message: 'Not signed in' }, 401);
        }
        // The second request meets a server restarting: nothing of it is deleted.
        if (deletes.length > 1 && second === 'refused') return json({ message: 'Service unavailable.' }, 503);
        library = library.filter((p) => !ids.includes(p.id));
        if (deletes.length > 1 && second instanceof Response) return second;
        // The server deleted them, but its answer never reached the browser.
        if (deletes.length > 1) throw new TypeError('Failed to fetch');
        return new Response(JSON.stringify({ deleted: ids.length }));
      }
      if (url.startsWith('/api/photos/timeline')) {
        // Still restarting when the gallery asks for the library again.
        if (refreshRefused) return new Response(JSON.stringify({ message: 'Service unavailable.' }), { status: 503 });
        return new Response(JSON.stringify({ items: library, nextCursor: null, total: library.length }));
      }
      return new Response('[]');
    }),
  );
});
afterEach(() => {
  act(() => dismissAllToasts());
  vi.unstubAllGlobals();
});

async function deleteThree(options?: Parameters<typeof renderGallery>[0]) {
  const user = userEvent.setup();
  renderGallery(options);
  await user.click(await screen.findByRole('button', { name: 'Select' }, { timeout: 10_000 }));
  for (const name of ['Beach', 'Forest', 'Harbour'])
    await user.click(screen.getByRole('button', { name: `Select ${name}` }));
  await user.click(screen.getByRole('button', { name: 'Delete' }));
  const dialog = await screen.findByRole('alertdialog', { name: 'Delete 3 photos?' });
  await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
  await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
}

describe('a delete whose later request fails', () => {
  it('says how many were deleted and that the rest are still selected, not "Delete failed"', async () => {
    await deleteThree();
    expect(deletes).toEqual([['p1', 'p2'], ['p3']]);
    expect(await screen.findByText('2 of 3 photos deleted')).toBeInTheDocument();
    expect(screen.getByText('1 photo was not deleted and is still selected. Service unavailable.')).toBeInTheDocument();
    expect(screen.queryByText('Delete failed')).toBeNull();
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Select Beach' })).toBeNull());
    expect(screen.getByRole('button', { name: 'Select Harbour' })).toHaveAttribute('aria-pressed', 'true');
    expect(screen.getByRole('button', { name: 'Select Meadow' })).toHaveAttribute('aria-pressed', 'false');
    expect(screen.getByTestId('selected-count')).toHaveTextContent('1 selected');
  });

  it('takes the deleted photos off the grid and the selection though the refresh after it is refused', async () => {
    const user = userEvent.setup();
    renderGallery();
    await user.click(await screen.findByRole('button', { name: 'Select' }, { timeout: 10_000 }));
    // The first page was read before the server began refusing.
    refreshRefused = true;
    for (const name of ['Beach', 'Forest', 'Harbour'])
      await user.click(screen.getByRole('button', { name: `Select ${name}` }));
    await user.click(screen.getByRole('button', { name: 'Delete' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Delete 3 photos?' });
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));

    expect(await screen.findByText('2 of 3 photos deleted')).toBeInTheDocument();
    expect(await screen.findByText(/Could not refresh your photos/)).toBeInTheDocument();
    // The grid draws a deferred copy of the list: a render later.
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Select Beach' })).toBeNull());
    expect(screen.queryByRole('button', { name: 'Select Forest' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Select Harbour' })).toHaveAttribute('aria-pressed', 'true');
    expect(screen.getByTestId('selected-count')).toHaveTextContent('1 selected');
  });

  it('says the outcome of a request whose answer was lost is unknown, and the refresh takes those deleted off', async () => {
    second = 'lost';
    await deleteThree();
    expect(deletes).toEqual([['p1', 'p2'], ['p3']]);
    expect(await screen.findByText('2 of 3 photos deleted')).toBeInTheDocument();
    // The server did delete Harbour: "not deleted" would be untrue.
    expect(
      screen.getByText(
        'Whether the last photo was deleted is unknown: the connection was lost. Your photos are being refreshed, and any still shown stay selected.',
      ),
    ).toBeInTheDocument();
    expect(screen.queryByText(/not deleted/)).toBeNull();
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Select Harbour' })).toBeNull());
    expect(screen.getByTestId('selected-count')).toHaveTextContent('0 selected');
    expect(screen.getByRole('button', { name: 'Select Meadow' })).toHaveAttribute('aria-pressed', 'false');
  });

  it.each([
    ['502 page', () => new Response('<html><head><title>502 Bad Gateway</title></head></html>', { status: 502 })],
    ['504 text', () => new Response('Gateway Timeout', { status: 504 })],
    ['503 page', () => new Response('<!DOCTYPE html><p>Service Unavailable</p>', { status: 503 })],
  ])(
    "says the outcome is unknown when a proxy's %s answers the later request, not that it was refused",
    async (_, page) => {
      second = page();
      await deleteThree();
      expect(await screen.findByText('2 of 3 photos deleted')).toBeInTheDocument();
      expect(
        screen.getByText(
          'Whether the last photo was deleted is unknown: the server did not answer. Your photos are being refreshed, and any still shown stay selected.',
        ),
      ).toBeInTheDocument();
      expect(screen.queryByText(/not deleted/)).toBeNull();
      await waitFor(() => expect(screen.queryByRole('button', { name: 'Select Harbour' })).toBeNull());
      expect(screen.getByTestId('selected-count')).toHaveTextContent('0 selected');
    },
  );

  it('asks who is signed in when the later request is answered 401, as any other 401 does', async () => {
    second = 'signed out';
    function Who() {
      const { user, isLoading } = useAuth();
      if (isLoading) return null;
      return <p>{user ? `Signed in as ${user.firstName}` : 'Signed out'}</p>;
    }
    const qc = galleryQueryClient();
    const stop = forgetAnswersOnAccountChange(qc);
    try {
      await deleteThree({ qc, beside: <Who /> });
      expect(await screen.findByText('2 of 3 photos deleted')).toBeInTheDocument();
      expect(await screen.findByText('Signed out')).toBeInTheDocument();
    } finally {
      stop();
    }
  });
});
