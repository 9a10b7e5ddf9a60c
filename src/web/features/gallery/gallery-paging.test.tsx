// @vitest-environment jsdom
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderGallery, stubResizeObserver } from './test-gallery';
import { testPhoto as photo } from './test-photos';

/** The gallery's next page refused (the page budget's 429): the photos stay, and the user asks again. */

const BUDGET_SPENT = 'Too many attempts. Please wait 1 minute(s) and try again.';
const refused = () => new Response(JSON.stringify({ message: BUDGET_SPENT }), { status: 429 });
const secondPage = () =>
  new Response(JSON.stringify({ items: [photo('p4', 'Lighthouse')], nextCursor: null, total: 4 }));

/** Each ask for the second page, answered when the test says. */
let asks: { url: string; answer: (res: Response) => void; fail: (err: Error) => void }[];

beforeEach(() => {
  window.history.replaceState(null, '');
  asks = [];
  stubResizeObserver();
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      if (!url.startsWith('/api/photos/timeline')) return new Response('[]');
      if (!url.includes('cursor=')) {
        const items = [photo('p1', 'Beach'), photo('p2', 'Forest'), photo('p3', 'Harbour')];
        return new Response(JSON.stringify({ items, nextCursor: 'more', total: 4 }));
      }
      return new Promise<Response>((answer, fail) => asks.push({ url, answer, fail }));
    }),
  );
});
afterEach(() => vi.unstubAllGlobals());

/** Lets every answer and render waiting run (a loop of asks would show here). */
const settle = async () => {
  for (let i = 0; i < 20; i++) await act(() => new Promise((r) => setTimeout(r, 0)));
};

describe('a next page refused in the grid', () => {
  it('keeps the photos shown, says why where the next page would go, and asks again only on Try again', async () => {
    const user = userEvent.setup();
    renderGallery();
    await screen.findByRole('button', { name: 'Open Beach' }, { timeout: 10_000 });
    // The grid asks for the second page as soon as its skeletons are in view.
    await waitFor(() => expect(asks).toHaveLength(1));
    await act(async () => asks[0]!.answer(refused()));

    expect(await screen.findByRole('alert')).toHaveTextContent(`Could not load more photos. ${BUDGET_SPENT}`);
    for (const name of ['Beach', 'Forest', 'Harbour']) {
      expect(screen.getByRole('button', { name: `Open ${name}` })).toBeInTheDocument();
    }
    // Not asked again by itself: each ask spends the page budget it was refused for.
    await settle();
    expect(asks).toHaveLength(1);

    await user.click(screen.getByRole('button', { name: 'Try again' }));
    await waitFor(() => expect(asks).toHaveLength(2));
    expect(asks[1]!.url).toContain('cursor=more');
    await act(async () => asks[1]!.answer(secondPage()));

    const lighthouse = await screen.findByRole('button', { name: 'Open Lighthouse' });
    expect(screen.queryByRole('alert')).toBeNull();
    // Try again went with the failure: focus goes to the first photo it brought, not to the page.
    await waitFor(() => expect(lighthouse).toHaveFocus());
  });

  it('says the refusal again when Try again is refused again', async () => {
    const user = userEvent.setup();
    renderGallery();
    await waitFor(() => expect(asks).toHaveLength(1), { timeout: 10_000 });
    await act(async () => asks[0]!.answer(new Response('Bad gateway', { status: 502 })));
    expect(await screen.findByRole('alert')).toHaveTextContent('Could not load more photos. Bad gateway');

    const tryAgain = screen.getByRole('button', { name: 'Try again' });
    await user.click(tryAgain);
    // On its way: pending, presses refused.
    await waitFor(() => expect(tryAgain).toHaveAttribute('aria-disabled', 'true'));
    await user.click(tryAgain);
    await settle();
    expect(asks).toHaveLength(2);
    // The connection lost: fetch itself fails.
    await act(async () => asks[1]!.fail(new TypeError('Failed to fetch')));
    await waitFor(() =>
      expect(screen.getByRole('alert')).toHaveTextContent(
        'Could not load more photos. Network error. Please try again.',
      ),
    );
    expect(screen.getByRole('button', { name: 'Open Harbour' })).toBeInTheDocument();
    expect(tryAgain).not.toHaveAttribute('aria-disabled');
  });
});

/** The viewer opened on the last photo loaded, the next page asked, and Next pressed. */
async function nextFromLastLoaded() {
  const user = userEvent.setup();
  renderGallery();
  await user.click(await screen.findByRole('button', { name: 'Open Harbour' }, { timeout: 10_000 }));
  // A shared, loaded machine can take more than the default second for each of these.
  const dialog = await screen.findByRole('dialog', { name: 'Your Photos' }, { timeout: 10_000 });
  await waitFor(() => expect(asks).toHaveLength(1), { timeout: 10_000 });
  await user.click(within(dialog).getByRole('button', { name: 'Next photo' }));
  return { user, dialog };
}

describe('a next page refused while the viewer waits for it', () => {
  it('says the page could not be loaded and why, and Next asks again', async () => {
    const { user, dialog } = await nextFromLastLoaded();
    expect(within(dialog).getByText('Loading more photos...')).toBeInTheDocument();

    await act(async () => asks[0]!.answer(refused()));
    expect(
      await within(dialog).findByText(`Could not load more photos. ${BUDGET_SPENT} Press Next to try again.`),
    ).toBeInTheDocument();
    expect(within(dialog).queryByText('Loading more photos...')).toBeNull();
    await settle();
    expect(asks).toHaveLength(1);

    await user.click(within(dialog).getByRole('button', { name: 'Next photo' }));
    await waitFor(() => expect(asks).toHaveLength(2));
    expect(within(dialog).getByText('Loading more photos...')).toBeInTheDocument();
    await act(async () => asks[1]!.answer(secondPage()));
    expect(await within(dialog).findByText('Photo 4 of 4: Lighthouse')).toBeInTheDocument();
  });
});

describe('Next on the last photo loaded', () => {
  it('moves to the first photo of the last page once it arrives', async () => {
    const { dialog } = await nextFromLastLoaded();
    // The last page: 'no more' came a render before its photos were drawn, and Next was dropped.
    await act(async () => asks[0]!.answer(secondPage()));
    expect(await within(dialog).findByText('Photo 4 of 4: Lighthouse')).toBeInTheDocument();
  });
});

describe('a refresh refused', () => {
  it('keeps the photos shown and Try again refreshes', async () => {
    const user = userEvent.setup();
    let refreshes = 0;
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        if (!url.startsWith('/api/photos/timeline')) return new Response('[]');
        const items = [photo('p1', 'Beach'), photo('p2', 'Forest')];
        if (refreshes++ === 1) return refused();
        if (refreshes > 2) items.push(photo('p3', 'Harbour'));
        return new Response(JSON.stringify({ items, nextCursor: null, total: items.length }));
      }),
    );
    const { qc } = renderGallery();
    await screen.findByRole('button', { name: 'Open Beach' }, { timeout: 10_000 });
    // An upload ended elsewhere refreshes the gallery; the page budget is spent.
    await act(() => qc.invalidateQueries({ queryKey: ['/api/photos'] }));
    expect(await screen.findByRole('alert')).toHaveTextContent(`Could not refresh your photos. ${BUDGET_SPENT}`);
    expect(screen.getByRole('button', { name: 'Open Forest' })).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('button', { name: 'Open Harbour' })).toBeInTheDocument();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('an empty library whose refresh is refused says so under its empty words, and Try again refreshes', async () => {
    const user = userEvent.setup();
    let asked = 0;
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        if (!url.startsWith('/api/photos/timeline')) return new Response('[]');
        asked++;
        if (asked === 2) return refused();
        const items = asked > 2 ? [photo('p1', 'Beach')] : [];
        return new Response(JSON.stringify({ items, nextCursor: null, total: items.length }));
      }),
    );
    const { qc } = renderGallery();
    expect(await screen.findByText('No photos yet', undefined, { timeout: 10_000 })).toBeInTheDocument();
    // An upload ended in another tab refreshes the gallery; the page budget is spent.
    await act(() => qc.invalidateQueries({ queryKey: ['/api/photos'] }));
    expect(await screen.findByRole('alert')).toHaveTextContent(`Could not refresh your photos. ${BUDGET_SPENT}`);
    expect(screen.getByText('No photos yet')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('button', { name: 'Open Beach' })).toBeInTheDocument();
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
