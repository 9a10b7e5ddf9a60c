// @vitest-environment jsdom
import { QueryClient, QueryClientProvider, useQuery } from '@tanstack/react-query';
import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { OfflineScreen, useOfflineWithoutData } from './offline';
import { UpdatePrompt } from './update-prompt';

describe('UpdatePrompt', () => {
  it('offers a reload when a new version is waiting', async () => {
    const onReload = vi.fn();
    const onDismiss = vi.fn();
    const { rerender } = render(<UpdatePrompt needRefresh={false} onReload={onReload} onDismiss={onDismiss} />);
    expect(screen.queryByText('A new version of Eyevu is available')).toBeNull();
    rerender(<UpdatePrompt needRefresh onReload={onReload} onDismiss={onDismiss} />);
    expect(screen.getByRole('status')).toHaveTextContent('A new version of Eyevu is available');
    await userEvent.click(screen.getByRole('button', { name: 'Reload' }));
    expect(onReload).toHaveBeenCalledOnce();
    await userEvent.click(screen.getByRole('button', { name: 'Dismiss update' }));
    expect(onDismiss).toHaveBeenCalledOnce();
  });
});

describe('offline screen', () => {
  let online = true;
  beforeEach(() => {
    online = true;
    vi.spyOn(navigator, 'onLine', 'get').mockImplementation(() => online);
  });
  afterEach(() => vi.restoreAllMocks());

  function Screen({ fetcher }: { fetcher: () => Promise<string> }) {
    const q = useQuery({ queryKey: ['thing'], queryFn: fetcher, retry: false, networkMode: 'always' });
    const offline = useOfflineWithoutData();
    return offline ? <OfflineScreen /> : <p>{q.data ?? 'loading'}</p>;
  }

  it("shows 'You're offline' for data a network error kept away, and Try again loads it", async () => {
    const qc = new QueryClient();
    const fetcher = vi.fn<() => Promise<string>>().mockRejectedValueOnce(new TypeError('Failed to fetch'));
    online = false;
    render(
      <QueryClientProvider client={qc}>
        <Screen fetcher={fetcher} />
      </QueryClientProvider>,
    );
    expect(await screen.findByRole('heading', { name: "You're offline" })).toBeInTheDocument();
    online = true;
    fetcher.mockResolvedValue('the data');
    await act(async () => {
      await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    });
    expect(await screen.findByText('the data')).toBeInTheDocument();
  });

  it('does not call a server error an offline state', async () => {
    const qc = new QueryClient();
    render(
      <QueryClientProvider client={qc}>
        <Screen fetcher={() => Promise.reject(new Error('500: boom'))} />
      </QueryClientProvider>,
    );
    await act(async () => {});
    expect(screen.queryByRole('heading', { name: "You're offline" })).toBeNull();
  });
});
