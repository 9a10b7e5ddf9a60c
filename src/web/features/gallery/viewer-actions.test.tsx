// @vitest-environment jsdom
import type { Photo } from '@contract/photos';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { getQueryFn } from '../../lib/api';
import { ViewerActions, ViewerManageActions } from './viewer-actions';

const photo = {
  id: 'p1',
  name: 'Beach.jpg',
  favorite: false,
  appliedFilter: { filterName: 'vintage', intensity: 100 },
} as unknown as Photo;

function setup(ui: React.ReactNode) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async () => new Response('{}', { status: 500 })),
  );
  const qc = new QueryClient({
    defaultOptions: { queries: { queryFn: getQueryFn({ on401: 'throw' }), retry: false } },
  });
  render(<QueryClientProvider client={qc}>{ui}</QueryClientProvider>);
}

afterEach(() => vi.unstubAllGlobals());

/** The viewer's own dialogs are opened by plain buttons: closing one gives focus back to its button. */
describe('the viewer’s Info, Download and Delete dialogs', () => {
  it.each([
    ['Info', 'dialog', 'Photo info', () => <ViewerActions photo={photo} />],
    ['Download', 'dialog', 'Download photo', () => <ViewerManageActions photo={photo} onDeleted={() => {}} />],
    ['Delete', 'alertdialog', 'Delete 1 photo?', () => <ViewerManageActions photo={photo} onDeleted={() => {}} />],
  ] as const)('returns focus to %s when its dialog closes with Escape', async (button, role, title, ui) => {
    const user = userEvent.setup();
    setup(ui());
    await user.click(screen.getByRole('button', { name: button }));
    expect(await screen.findByRole(role, { name: title })).toBeInTheDocument();
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole(role)).toBeNull());
    await waitFor(() => expect(screen.getByRole('button', { name: button })).toHaveFocus());
  });
});

describe('the Info panel', () => {
  it('says why its details could not be read and offers Try again, which shows them', async () => {
    const user = userEvent.setup();
    setup(<ViewerActions photo={photo} />);
    await user.click(screen.getByRole('button', { name: 'Info' }));
    const dialog = await screen.findByRole('dialog', { name: 'Photo info' });
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Could not load the photo details.');
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response(JSON.stringify({ name: 'Beach.jpg', description: 'A sunny beach', tags: [] }))),
    );
    await user.click(within(dialog).getByRole('button', { name: 'Try again' }));
    expect(await within(dialog).findByText('A sunny beach')).toBeInTheDocument();
    expect(within(dialog).queryByRole('alert')).toBeNull();
    // Focus stays in the panel, on its title, not on the page behind it.
    await waitFor(() => expect(within(dialog).getByRole('heading', { name: 'Photo info' })).toHaveFocus());
  });
});
