// @vitest-environment jsdom
import type { Photo } from '@contract/photos';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { dismissAllToasts } from '../../lib/toast';
import { renderGallery, stubResizeObserver } from './test-gallery';
import { testPhoto as photo } from './test-photos';

// Two photos a request, so three selected go in two requests (the app's 200 and 201).
vi.mock('@contract/photos-manage-limits', () => ({ DELETE_PHOTOS_MAX: 2 }));

/** A selection larger than one delete request, whose second request fails. */

let library: Photo[];
let deletes: string[][];
let refreshRefused: boolean;

beforeEach(() => {
  library = [photo('p1', 'Beach'), photo('p2', 'Forest'), photo('p3', 'Harbour'), photo('p4', 'Meadow')];
  deletes = [];
  refreshRefused = false;
  stubResizeObserver();
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      if (url === '/api/photos/delete') {
        const { ids } = JSON.parse(init!.body as string) as { ids: string[] };
        deletes.push(ids);
        // The second request meets a server restarting: nothing of it is deleted.
        if (deletes.length > 1)
          return new Response(JSON.stringify({ message: 'Service unavailable.' }), { status: 503 });
        library = library.filter((p) => !ids.includes(p.id));
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

async function deleteThree() {
  const user = userEvent.setup();
  renderGallery();
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
});
