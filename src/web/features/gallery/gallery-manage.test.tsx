// @vitest-environment jsdom
import type { Photo } from '@contract/photos';
import { QueryClient, QueryClientProvider, onlineManager } from '@tanstack/react-query';
import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Toaster } from '../../components/ui/toaster';
import { dismissAllToasts } from '../../lib/toast';
import { ViewerActions } from './viewer-actions';
import { renderGallery, stubResizeObserver } from './test-gallery';
import { testPhoto as photo } from './test-photos';

/** Selecting and deleting in the gallery: where focus goes, and a delete that cannot be sent. */

let library: Photo[];
let onDelete: (ids: string[]) => Promise<Response>;

beforeEach(() => {
  // No viewer entry left by the test before (its Back may still be on its way).
  window.history.replaceState(null, '');
  library = [photo('p1', 'Beach'), photo('p2', 'Forest'), photo('p3', 'Harbour')];
  onDelete = async (ids) => {
    library = library.filter((p) => !ids.includes(p.id));
    return new Response(JSON.stringify({ deleted: ids.length }));
  };
  stubResizeObserver();
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      if (url === '/api/photos/delete') return onDelete((JSON.parse(init!.body as string) as { ids: string[] }).ids);
      const favorite = /^\/api\/photos\/([^/]+)\/favorite$/.exec(url);
      if (favorite && init?.method === 'PUT') {
        const on = (JSON.parse(init.body as string) as { favorite: boolean }).favorite;
        library = library.map((p) => (p.id === favorite[1] ? { ...p, favorite: on } : p));
        return new Response(JSON.stringify({ favorite: on }));
      }
      if (url.startsWith('/api/photos/favorites')) {
        const items = library.filter((p) => p.favorite);
        return new Response(JSON.stringify({ items, nextCursor: null, total: items.length }));
      }
      if (url.startsWith('/api/photos/timeline'))
        return new Response(JSON.stringify({ items: library, nextCursor: null, total: library.length }));
      return new Response('[]');
    }),
  );
});
afterEach(() => {
  act(() => dismissAllToasts());
  onlineManager.setOnline(true);
  vi.unstubAllGlobals();
});

/** The first answer on a loaded machine (the test runner shares it) may take more than a second. */
const findSelect = () => screen.findByRole('button', { name: 'Select' }, { timeout: 10_000 });

async function selectTwo() {
  const user = userEvent.setup();
  renderGallery();
  await user.click(await findSelect());
  await user.click(screen.getByRole('button', { name: 'Select Beach' }));
  await user.click(screen.getByRole('button', { name: 'Select Forest' }));
  await user.click(screen.getByRole('button', { name: 'Delete' }));
  const dialog = await screen.findByRole('alertdialog', { name: 'Delete 2 photos?' });
  return { user, dialog };
}

describe('selecting and deleting in the gallery', () => {
  it('gives focus to Select once the photos are deleted and the selection bar has gone', async () => {
    const { user, dialog } = await selectTwo();
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    await screen.findByText('2 photos deleted');
    await waitFor(() => expect(screen.queryByRole('button', { name: /Beach/ })).toBeNull());
    await waitFor(() => expect(screen.getByRole('button', { name: 'Select' })).toHaveFocus());
    // Radix gives focus back a moment after its dialog goes: it must not take it from Select.
    await act(() => new Promise((r) => setTimeout(r, 0)));
    expect(screen.getByRole('button', { name: 'Select' })).toHaveFocus();
  });

  it('gives focus to Upload when the delete left nothing to select', async () => {
    library = [photo('p1', 'Beach'), photo('p2', 'Forest')];
    const { user, dialog } = await selectTwo();
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await screen.findByText('No photos yet');
    await waitFor(() => expect(screen.getByRole('button', { name: 'Upload' })).toHaveFocus());
  });

  it('gives focus to Select when the selection is cancelled from its bar', async () => {
    const user = userEvent.setup();
    renderGallery();
    await user.click(await findSelect());
    await user.click(screen.getByRole('button', { name: 'Cancel selection' }));
    expect(screen.queryByRole('toolbar', { name: 'Selection' })).toBeNull();
    await waitFor(() => expect(screen.getByRole('button', { name: 'Select' })).toHaveFocus());
  });

  it('keeps focus on the pressed Delete while it is on its way, and the dialog open', async () => {
    onDelete = () => new Promise(() => {});
    const { user, dialog } = await selectTwo();
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    const pending = await within(dialog).findByRole('button', { name: 'Deleting...' });
    expect(pending).toHaveAttribute('aria-disabled', 'true');
    expect(pending).toBeEnabled();
    expect(pending).toHaveFocus();
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await user.keyboard('{Escape}');
    expect(screen.getByRole('alertdialog')).toBeInTheDocument();
  });

  it('says at once that a delete cannot be sent offline, instead of a confirmation stuck on Deleting...', async () => {
    onDelete = () => Promise.reject(new TypeError('Failed to fetch'));
    const { user, dialog } = await selectTwo();
    onlineManager.setOnline(false);
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    // Offline now, the connection may have dropped after the request left: not 'Delete failed'.
    expect(await screen.findByText('Delete not confirmed')).toBeInTheDocument();
    expect(
      screen.getByText(
        'Whether the 2 photos were deleted is unknown: the connection was lost. Your photos are being refreshed, and any still shown stay selected.',
      ),
    ).toBeInTheDocument();
  });

  it.each([
    [
      "a gateway's timeout",
      () => new Response('<html><body><h1>504 Gateway Time-out</h1></body></html>', { status: 504 }),
    ],
    ["a proxy's error page", () => new Response('<!doctype html><title>503</title>', { status: 503 })],
  ])(
    'a delete answered by %s says its outcome is unknown, and the refresh takes off those deleted',
    async (_, answer) => {
      onDelete = async (ids) => {
        // The server deleted them; the proxy in front of it gave up waiting for its answer.
        library = library.filter((p) => !ids.includes(p.id));
        return answer();
      };
      const { user, dialog } = await selectTwo();
      await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
      expect(await screen.findByText('Delete not confirmed')).toBeInTheDocument();
      expect(
        screen.getByText(
          'Whether the 2 photos were deleted is unknown: the server did not answer. Your photos are being refreshed, and any still shown stay selected.',
        ),
      ).toBeInTheDocument();
      expect(screen.queryByText('Delete failed')).toBeNull();
      await waitFor(() => expect(screen.queryByRole('button', { name: 'Select Beach' })).toBeNull());
      expect(screen.getByTestId('selected-count')).toHaveTextContent('0 selected');
    },
  );

  it("the server's own refusal is still 'Delete failed' with its reason", async () => {
    onDelete = async () =>
      new Response(JSON.stringify({ message: 'Service temporarily unavailable.', code: 'unavailable' }), {
        status: 503,
      });
    const { user, dialog } = await selectTwo();
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('Delete failed')).toBeInTheDocument();
    expect(screen.getByText('Service temporarily unavailable.')).toBeInTheDocument();
  });
});

describe('deleting in the viewer', () => {
  async function deleteInViewer(user: ReturnType<typeof userEvent.setup>) {
    const viewer = await screen.findByRole('dialog', { name: 'Your Photos' });
    await user.click(within(viewer).getByRole('button', { name: 'Delete' }));
    const confirm = await screen.findByRole('alertdialog', { name: 'Delete 1 photo?' });
    await user.click(within(confirm).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
  }

  it('says a delete a gateway answered 504 may have been done, and the refresh takes the photo off', async () => {
    onDelete = async (ids) => {
      library = library.filter((p) => !ids.includes(p.id));
      return new Response('<html><body>504 Gateway Time-out</body></html>', { status: 504 });
    };
    const user = userEvent.setup();
    renderGallery();
    await findSelect();
    await user.click(screen.getByRole('button', { name: 'Open Beach' }));
    await deleteInViewer(user);
    expect(await screen.findByText('Delete not confirmed')).toBeInTheDocument();
    expect(
      screen.getByText(
        'Whether the photo was deleted is unknown: the server did not answer. Your photos are being refreshed.',
      ),
    ).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Open Beach' })).toBeNull());
  });

  it('gives focus to Upload when the viewer deleted the last photo and closed', async () => {
    library = [photo('p1', 'Beach')];
    const user = userEvent.setup();
    renderGallery();
    await findSelect();
    await user.click(screen.getByRole('button', { name: 'Open Beach' }));
    await deleteInViewer(user);
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Your Photos' })).toBeNull());
    await screen.findByText('No photos yet');
    await waitFor(() => expect(screen.getByRole('button', { name: 'Upload' })).toHaveFocus());
  });

  it('gives focus back to the photo it was opened from, though a photo before it was deleted', async () => {
    const user = userEvent.setup();
    renderGallery();
    await findSelect();
    await user.click(screen.getByRole('button', { name: 'Open Harbour' }));
    await user.keyboard('{ArrowLeft}{ArrowLeft}');
    // Beach goes: Harbour's tile is drawn again in the first row.
    await deleteInViewer(user);
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Open Beach' })).toBeNull());
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Your Photos' })).toBeNull());
    await waitFor(() => expect(screen.getByRole('button', { name: 'Open Harbour' })).toHaveFocus());
  });

  it('gives focus to Select when the photo it was opened from was deleted', async () => {
    const user = userEvent.setup();
    renderGallery();
    await findSelect();
    await user.click(screen.getByRole('button', { name: 'Open Beach' }));
    await deleteInViewer(user);
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Open Beach' })).toBeNull());
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Your Photos' })).toBeNull());
    await waitFor(() => expect(screen.getByRole('button', { name: 'Select' })).toHaveFocus());
  });
});

describe('the Favorites album in the viewer', () => {
  it('closes the viewer when its last favourite is un-hearted, rather than an empty viewer', async () => {
    library = [{ ...photo('p1', 'Beach'), favorite: true }, photo('p2', 'Forest')];
    const user = userEvent.setup();
    renderGallery({ path: '/gallery?view=favorites' });
    await user.click(await screen.findByRole('button', { name: 'Open Beach' }, { timeout: 10_000 }));
    const viewer = await screen.findByRole('dialog', { name: 'Your Photos' });
    await user.click(within(viewer).getByRole('button', { name: 'Favorite' }));
    await screen.findByText('No favorites yet');
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Your Photos' })).toBeNull());
    await waitFor(() => expect(screen.getByRole('button', { name: 'Upload' })).toHaveFocus());
  });
});

describe('Back while the viewer is open', () => {
  const viewer = () => screen.queryByRole('dialog', { name: 'Your Photos' });

  it('closes the viewer and stays in the gallery, focus back on the photo', async () => {
    const user = userEvent.setup();
    renderGallery();
    await findSelect();
    await user.click(screen.getByRole('button', { name: 'Open Forest' }));
    expect(await screen.findByRole('dialog', { name: 'Your Photos' })).toBeInTheDocument();
    expect(window.history.state).toMatchObject({ eyevuViewerPhoto: 'p2' });
    act(() => window.history.back());
    await waitFor(() => expect(viewer()).toBeNull());
    expect(screen.getByRole('heading', { name: 'Photo Gallery' })).toBeInTheDocument();
    await waitFor(() => expect(screen.getByRole('button', { name: 'Open Forest' })).toHaveFocus());
  });

  it('closed by its own button, leaves no entry behind for Back to stop at', async () => {
    const user = userEvent.setup();
    renderGallery();
    await findSelect();
    const state = window.history.state as unknown;
    await user.click(screen.getByRole('button', { name: 'Open Beach' }));
    await user.click(await screen.findByRole('button', { name: 'Close' }));
    await waitFor(() => expect(viewer()).toBeNull());
    await waitFor(() => expect(window.history.state).toEqual(state));
  });

  it('opens again on the photo it last showed when Back returns to it (from the photo editor)', async () => {
    const user = userEvent.setup();
    renderGallery();
    await findSelect();
    await user.click(screen.getByRole('button', { name: 'Open Beach' }));
    await screen.findByRole('dialog', { name: 'Your Photos' });
    await user.keyboard('{ArrowLeft}');
    // The Edit link leaves the gallery with the viewer's entry under the editor's; Back returns to it.
    cleanup();
    renderGallery();
    const again = await screen.findByRole('dialog', { name: 'Your Photos' }, { timeout: 10_000 });
    expect(within(again).getByTestId('viewer-caption')).toHaveTextContent('Harbour');
    await user.keyboard('{Escape}');
    await waitFor(() => expect(viewer()).toBeNull());
  });
});

describe('Back while the Possible duplicates viewer is open', () => {
  const viewer = () => screen.queryByRole('dialog', { name: 'Your Photos' });
  beforeEach(() => {
    const timeline = vi.mocked(fetch).getMockImplementation()!;
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init?: RequestInit) =>
        url === '/api/photos/duplicates'
          ? new Response(
              JSON.stringify({ name: 'Possible duplicates', groups: [[library[0], library[1]]], photoCount: 2 }),
            )
          : timeline(url, init),
      ),
    );
  });

  it('closes the viewer and stays in the album', async () => {
    const user = userEvent.setup();
    renderGallery({ path: '/gallery?album=duplicates' });
    await user.click(await screen.findByRole('button', { name: 'Open Forest' }, { timeout: 10_000 }));
    expect(await screen.findByRole('dialog', { name: 'Your Photos' })).toBeInTheDocument();
    expect(window.history.state).toMatchObject({ eyevuViewerPhoto: 'p2' });
    act(() => window.history.back());
    await waitFor(() => expect(viewer()).toBeNull());
    expect(screen.getByRole('heading', { name: 'Possible duplicates' })).toBeInTheDocument();
  });

  it('closed by its own button, leaves no entry behind; Back from the editor opens it again', async () => {
    const user = userEvent.setup();
    renderGallery({ path: '/gallery?album=duplicates' });
    const state = window.history.state as unknown;
    await user.click(await screen.findByRole('button', { name: 'Open Beach' }, { timeout: 10_000 }));
    await user.click(await screen.findByRole('button', { name: 'Close' }));
    await waitFor(() => expect(viewer()).toBeNull());
    await waitFor(() => expect(window.history.state).toEqual(state));

    await user.click(screen.getByRole('button', { name: 'Open Beach' }));
    await screen.findByRole('dialog', { name: 'Your Photos' });
    await user.keyboard('{ArrowRight}');
    cleanup();
    renderGallery({ path: '/gallery?album=duplicates' });
    const again = await screen.findByRole('dialog', { name: 'Your Photos' }, { timeout: 10_000 });
    expect(within(again).getByTestId('viewer-caption')).toHaveTextContent('Forest');
    // The album's own viewer: two photos, not the library's three.
    expect(within(again).getAllByRole('button', { name: /^Show / })).toHaveLength(2);
  });
});

describe('the favourite heart offline', () => {
  it('says at once that it could not be saved, instead of a heart that shows what was never saved', async () => {
    const user = userEvent.setup();
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Promise.reject(new TypeError('Failed to fetch'))),
    );
    onlineManager.setOnline(false);
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
    render(
      <QueryClientProvider client={qc}>
        <ViewerActions photo={photo('p1', 'Beach')} />
        <Toaster />
      </QueryClientProvider>,
    );
    await user.click(screen.getByRole('button', { name: 'Favorite' }));
    expect(await screen.findByText('Network error. Please try again.')).toBeInTheDocument();
  });
});

describe('the favourite heart pressed twice', () => {
  it('shows what the server holds when both presses are refused, never the first press undone by the second', async () => {
    const served = fetch as unknown as (url: string, init?: RequestInit) => Promise<Response>;
    const answers: Array<(res: Response) => void> = [];
    vi.stubGlobal(
      'fetch',
      vi.fn((url: string, init?: RequestInit) =>
        init?.method === 'PUT' ? new Promise<Response>((resolve) => answers.push(resolve)) : served(url, init),
      ),
    );
    const user = userEvent.setup();
    renderGallery();
    await user.click(await screen.findByRole('button', { name: 'Open Harbour' }, { timeout: 10_000 }));
    const viewer = await screen.findByRole('dialog', { name: 'Your Photos' });
    const heart = within(viewer).getByRole('button', { name: 'Favorite' });
    // Hearted, then (its answer still on its way) un-hearted: the user wants it as it was.
    await user.click(heart);
    await waitFor(() => expect(heart).toHaveAttribute('aria-pressed', 'true'));
    await user.click(heart);
    // The second press waits for the first's answer (refused, focus kept), so what is on screen is
    // what the one request asked for.
    expect(heart).toHaveAttribute('aria-disabled', 'true');
    expect(heart).toHaveFocus();
    expect(answers).toHaveLength(1);

    const refused = () =>
      new Response(JSON.stringify({ message: 'Too many attempts. Please wait 1 minute(s) and try again.' }), {
        status: 429,
      });
    // Answered in the order sent, as one connection answers them.
    while (answers.length) await act(async () => answers.shift()!(refused()));
    await screen.findByText('Too many attempts. Please wait 1 minute(s) and try again.');
    // The server kept Harbour as it was: not a favourite.
    await waitFor(() =>
      expect(within(viewer).getByRole('button', { name: 'Favorite' })).toHaveAttribute('aria-pressed', 'false'),
    );
  });
});

describe('the next page refused while the viewer is open', () => {
  it('is asked once, not again and again, when the viewer is at the end of what is loaded', async () => {
    const asked: string[] = [];
    let answerFirst: () => void = () => {};
    const refused = () =>
      new Response(JSON.stringify({ message: 'Too many requests. Please wait a moment.' }), { status: 429 });
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        if (!url.startsWith('/api/photos/timeline')) return new Response('[]');
        if (!url.includes('cursor=')) {
          return new Response(JSON.stringify({ items: library, nextCursor: 'more', total: 300 }));
        }
        asked.push(url);
        // The first ask (the grid's) is answered once the viewer is open; the page budget is spent.
        if (asked.length === 1) return new Promise<Response>((resolve) => (answerFirst = () => resolve(refused())));
        // A task later, as a network answer comes (answered at once, the loop never let the test go on).
        await new Promise((r) => setTimeout(r, 0));
        return refused();
      }),
    );
    const user = userEvent.setup();
    renderGallery();
    await findSelect();
    await user.click(screen.getByRole('button', { name: 'Open Harbour' }));
    await screen.findByRole('dialog', { name: 'Your Photos' });
    await waitFor(() => expect(asked).toHaveLength(1));
    await act(async () => answerFirst());
    // Each refusal made a new loadMore, which the viewer, still near the end, called again at once.
    for (let i = 0; i < 20; i++) await act(() => new Promise((r) => setTimeout(r, 0)));
    expect(asked.length).toBeLessThanOrEqual(2);
  });
});
