// @vitest-environment jsdom
import type { Photo } from '@contract/photos';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState, type ReactElement } from 'react';
import { Toaster } from '../../components/ui/toaster';
import { getQueryFn } from '../../lib/api';
import { dismissAllToasts } from '../../lib/toast';
import { PhotoViewer } from './photo-viewer';
import { testPhoto as photo } from './test-photos';

let deleted: string[][];
beforeEach(() => {
  deleted = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      if (url === '/api/photos/delete') {
        const { ids } = JSON.parse(init!.body as string) as { ids: string[] };
        deleted.push(ids);
        return new Response(JSON.stringify({ deleted: ids.length }));
      }
      if (url.endsWith('/info')) return new Response(JSON.stringify({ message: 'Photo not found.' }), { status: 404 });
      return new Response(JSON.stringify({ items: [] }));
    }),
  );
});
afterEach(() => {
  act(() => dismissAllToasts());
  vi.unstubAllGlobals();
});

function Viewer(props: { photos: Photo[] }) {
  const [open, setOpen] = useState(true);
  return <PhotoViewer photos={props.photos} open={open} onOpenChange={setOpen} showManage />;
}

/** `ui` under one query client (the app's query function, no retries) and the toasts. */
function renderInClient(ui: ReactElement) {
  const qc = new QueryClient({
    defaultOptions: { queries: { queryFn: getQueryFn({ on401: 'throw' }), retry: false }, mutations: { retry: false } },
  });
  const inClient = (node: ReactElement) => (
    <QueryClientProvider client={qc}>
      {node}
      <Toaster />
    </QueryClientProvider>
  );
  const view = render(inClient(ui));
  return { rerender: (node: ReactElement) => view.rerender(inClient(node)) };
}

/** The viewer open on `photos`; `showList` gives it another list, as the gallery's refresh does. */
function renderViewer(photos: Photo[]) {
  const { rerender } = renderInClient(<Viewer photos={photos} />);
  return { showList: (next: Photo[]) => rerender(<Viewer photos={next} />) };
}

const caption = () => screen.getByTestId('viewer-caption');

describe('the photo viewer', () => {
  it('moves between photos with the arrow keys', async () => {
    const user = userEvent.setup();
    renderViewer([photo('p1', 'Beach'), photo('p2', 'Forest')]);
    expect(within(caption()).getByText('Beach')).toBeInTheDocument();
    await user.keyboard('{ArrowRight}');
    expect(within(caption()).getByText('Forest')).toBeInTheDocument();
    await user.keyboard('{ArrowLeft}');
    expect(within(caption()).getByText('Beach')).toBeInTheDocument();
  });

  it('says which photo it shows as the user moves, and names the photo its zoom button enlarges', async () => {
    const user = userEvent.setup();
    renderViewer([photo('p1', 'Beach'), photo('p2', 'Forest')]);
    expect(screen.getByRole('button', { name: 'Zoom in' })).toHaveAccessibleDescription('Beach');
    await user.click(screen.getByRole('button', { name: 'Next photo' }));
    expect(
      within(screen.getByRole('dialog', { name: 'Your Photos' })).getByText('Photo 2 of 2: Forest'),
    ).toHaveAttribute('role', 'status');
    expect(screen.getByRole('button', { name: 'Zoom in' })).toHaveAccessibleDescription('Forest');
  });

  it('deletes the photo the confirmation was opened for, though arrow keys were pressed in it', async () => {
    const user = userEvent.setup();
    renderViewer([photo('p1', 'Beach'), photo('p2', 'Forest'), photo('p3', 'Harbour')]);
    await user.click(screen.getByRole('button', { name: 'Delete' }));
    const confirm = await screen.findByRole('alertdialog', { name: 'Delete 1 photo?' });
    // A keyboard user moving between the confirmation's buttons: the photo behind must not change.
    await user.keyboard('{ArrowRight}{ArrowRight}{ArrowLeft}{ArrowRight}');
    expect(within(caption()).getByText('Beach')).toBeInTheDocument();
    await user.click(within(confirm).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(deleted).toEqual([['p1']]));
  });

  it('stays on its photo when the list changes under it, and deletes the photo the confirmation was opened for', async () => {
    const user = userEvent.setup();
    const { showList } = renderViewer([photo('p1', 'Beach'), photo('p2', 'Forest')]);
    await user.click(screen.getByRole('button', { name: 'Delete' }));
    const confirm = await screen.findByRole('alertdialog', { name: 'Delete 1 photo?' });
    // An upload still going on in the background ends: its photo arrives at the top of the list.
    showList([photo('p9', 'New upload'), photo('p1', 'Beach'), photo('p2', 'Forest')]);
    expect(within(caption()).getByText('Beach')).toBeInTheDocument();
    await user.click(within(confirm).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(deleted).toEqual([['p1']]));
  });

  it('deletes nothing else when the photo the confirmation was opened for went meanwhile', async () => {
    const user = userEvent.setup();
    const { showList } = renderViewer([photo('p1', 'Beach'), photo('p2', 'Forest')]);
    await user.click(screen.getByRole('button', { name: 'Delete' }));
    const confirm = await screen.findByRole('alertdialog', { name: 'Delete 1 photo?' });
    // Deleted in another tab, and the list refreshed: the viewer shows the next photo.
    showList([photo('p2', 'Forest')]);
    expect(within(caption()).getByText('Forest')).toBeInTheDocument();
    await user.click(within(confirm).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(deleted).toEqual([['p1']]));
  });

  it('keeps the Info panel on its photo while arrow keys are pressed in it', async () => {
    const user = userEvent.setup();
    renderViewer([photo('p1', 'Beach'), photo('p2', 'Forest')]);
    await user.click(screen.getByRole('button', { name: 'Info' }));
    await screen.findByRole('dialog', { name: 'Photo info' });
    await user.keyboard('{ArrowRight}');
    expect(within(caption()).getByText('Beach')).toBeInTheDocument();
  });
});

describe('the photo viewer over a library larger than its loaded pages', () => {
  /** The gallery's part: `photos` loaded so far, one more page given when the test says. */
  function Paged({
    pages,
    onLoadMore,
    initialIndex = 1,
  }: {
    pages: Photo[][];
    onLoadMore: () => void;
    initialIndex?: number;
  }) {
    const [loaded, setLoaded] = useState(1);
    const [open, setOpen] = useState(true);
    more = () => setLoaded((l) => l + 1);
    return (
      <PhotoViewer
        photos={pages.slice(0, loaded).flat()}
        open={open}
        onOpenChange={setOpen}
        initialIndex={initialIndex}
        hasMore={loaded < pages.length}
        loadMore={onLoadMore}
      />
    );
  }
  let more: () => void = () => {};

  it('goes on to the next page at the last photo loaded, instead of wrapping to the first', async () => {
    const user = userEvent.setup();
    const onLoadMore = vi.fn();
    renderInClient(
      <Paged
        pages={[[photo('p1', 'Beach'), photo('p2', 'Forest')], [photo('p3', 'Harbour')]]}
        onLoadMore={onLoadMore}
      />,
    );
    // Near the end of what is loaded, the next page is asked for before it is reached.
    expect(onLoadMore).toHaveBeenCalled();
    expect(within(caption()).getByText('Forest')).toBeInTheDocument();
    await user.keyboard('{ArrowRight}');
    // Not wrapped to Beach while Harbour is on its way.
    expect(within(caption()).getByText('Forest')).toBeInTheDocument();
    expect(screen.getByText('Loading more photos...')).toBeInTheDocument();
    act(() => more());
    expect(within(caption()).getByText('Harbour')).toBeInTheDocument();
    // The real end wraps, as the spec's arrows do.
    await user.keyboard('{ArrowRight}');
    expect(within(caption()).getByText('Beach')).toBeInTheDocument();
  });

  it('does not wrap back from the first photo to the last one loaded while more pages follow', async () => {
    const user = userEvent.setup();
    const loaded = [photo('p1', 'Beach'), photo('p2', 'Forest')];
    renderInClient(<Paged pages={[loaded, [photo('p3', 'Harbour')]]} onLoadMore={() => {}} initialIndex={0} />);
    const previous = screen.getByRole('button', { name: 'Previous photo' });
    expect(previous).toHaveAttribute('aria-disabled', 'true');
    await user.keyboard('{ArrowLeft}');
    await user.click(previous);
    // Forest is the last loaded, not the library's last: the viewer stays on Beach.
    expect(within(caption()).getByText('Beach')).toBeInTheDocument();
    expect(previous).toHaveFocus();
    // Everything loaded, the arrows wrap to the real last photo, as the spec's arrows do.
    act(() => more());
    expect(previous).not.toHaveAttribute('aria-disabled');
    await user.click(previous);
    expect(within(caption()).getByText('Harbour')).toBeInTheDocument();
  });
});
