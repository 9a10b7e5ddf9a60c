// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { HEARTBEAT_INTERVAL_MS } from '@contract/app-status-timing';
import { act, fireEvent, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Toaster } from '../../components/ui/toaster';
import { createQueryClient } from '../../lib/api';
import { dismissAllToasts } from '../../lib/toast';
import { useAppActive, useAppStatusHeartbeat } from '../rewards/app-status-query';
import { StatusCard } from './status-card';

const NOW = new Date('2026-03-10T12:00:00Z');

function renderCard(answer: (url: string) => Promise<Response>) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => answer(url)),
  );
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } });
  qc.setQueryData(['/api/app-status'], { isActive: false, isMonitoring: false, lastActivity: null, activeSince: null });
  render(
    <QueryClientProvider client={qc}>
      <StatusCard now={NOW} />
      <Toaster />
    </QueryClientProvider>,
  );
  return within(screen.getByTestId('status-card'));
}

afterEach(() => {
  vi.unstubAllGlobals();
  dismissAllToasts();
});

describe('StatusCard when the status cannot be read', () => {
  it('says why instead of claiming monitoring is off, and offers no switch', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(
        async () =>
          new Response(JSON.stringify({ message: 'Too many attempts. Please wait 5 minute(s) and try again.' }), {
            status: 429,
          }),
      ),
    );
    render(
      <QueryClientProvider client={createQueryClient()}>
        <StatusCard now={NOW} />
      </QueryClientProvider>,
    );
    const card = within(screen.getByTestId('status-card'));
    expect(await card.findByRole('alert')).toHaveTextContent(
      'Too many attempts. Please wait 5 minute(s) and try again.',
    );
    expect(card.queryByRole('heading', { name: 'Inactive' })).toBeNull();
    expect(card.queryByText('Ad monitoring is off')).toBeNull();
    expect(card.queryByText('Inactive')).toBeNull();
    expect(card.getByRole('button', { name: 'Activate' })).toBeDisabled();
  });
});

describe('StatusCard when the switch fails', () => {
  it('says so when the connection is lost, and stays inactive', async () => {
    const card = renderCard(() => Promise.reject(new TypeError('Failed to fetch')));
    await userEvent.click(card.getByRole('button', { name: 'Activate' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Error');
    expect(alert).toHaveTextContent('Network error. Please try again.');
    expect(card.getByRole('heading', { name: 'Inactive' })).toBeInTheDocument();
    expect(card.getByRole('button', { name: 'Activate' })).toBeEnabled();
  });

  it('shows the server’s reason for a refusal', async () => {
    const card = renderCard(
      async () =>
        new Response(JSON.stringify({ message: 'Too many attempts. Please wait 5 minute(s) and try again.' }), {
          status: 429,
        }),
    );
    await userEvent.click(card.getByRole('button', { name: 'Activate' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Too many attempts. Please wait 5 minute(s) and try again.',
    );
  });
});

describe('StatusCard while the switch’s request runs', () => {
  it('keeps focus on the pressed button, refuses presses, and sends one request', async () => {
    let answer: (r: Response) => void = () => {};
    const card = renderCard(() => new Promise<Response>((resolve) => (answer = resolve)));
    const user = userEvent.setup();
    const button = card.getByRole('button', { name: 'Activate' });
    await user.click(button);
    // Not disabled: Chrome moves focus off a disabled button to the page.
    expect(button).toBeEnabled();
    expect(button).toHaveAttribute('aria-disabled', 'true');
    expect(button).toHaveFocus();
    await user.click(button);
    await user.keyboard('{Enter}');
    expect(fetch).toHaveBeenCalledTimes(1);
    answer(
      new Response(
        JSON.stringify({
          status: {
            isActive: true,
            isMonitoring: true,
            lastActivity: NOW.toISOString(),
            activeSince: NOW.toISOString(),
          },
          points: 0,
          message: '',
          newAchievements: [],
        }),
        { status: 200, headers: { 'content-type': 'application/json' } },
      ),
    );
    const deactivate = await card.findByRole('button', { name: 'Deactivate' });
    expect(deactivate).toHaveFocus();
    expect(deactivate).not.toHaveAttribute('aria-disabled');
  });
});

describe('StatusCard beside the heartbeat', () => {
  const status = (isActive: boolean) => ({
    isActive,
    isMonitoring: isActive,
    lastActivity: NOW.toISOString(),
    activeSince: isActive ? NOW.toISOString() : null,
  });
  const json = (body: unknown) =>
    new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });

  /** An active card with the heartbeat running; each request waits until the test answers it. */
  function renderActive() {
    vi.useFakeTimers({ now: NOW, toFake: ['Date', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const waiting: { url: string; answer: (r: Response) => void }[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn((url: string) => new Promise<Response>((answer) => waiting.push({ url, answer }))),
    );
    const qc = createQueryClient();
    qc.setQueryData(['/api/app-status'], status(true));
    function Heartbeat() {
      useAppStatusHeartbeat(useAppActive());
      return null;
    }
    render(
      <QueryClientProvider client={qc}>
        <StatusCard now={NOW} />
        <Heartbeat />
      </QueryClientProvider>,
    );
    const answer = async (url: string, body: unknown) => {
      const at = waiting.findIndex((w) => w.url === url);
      if (at < 0) return;
      waiting.splice(at, 1)[0]!.answer(json(body));
      await act(async () => vi.advanceTimersByTimeAsync(100));
    };
    return { card: within(screen.getByTestId('status-card')), waiting, answer };
  }
  afterEach(() => vi.useRealTimers());

  it('a heartbeat answered after Deactivate does not show the app active again', async () => {
    const { card, waiting, answer } = renderActive();
    await act(async () => vi.advanceTimersByTimeAsync(HEARTBEAT_INTERVAL_MS));
    expect(waiting.map((w) => w.url)).toEqual(['/api/app-status/heartbeat']);
    // The server reads the heartbeat (active), then the Deactivate; the answers cross.
    fireEvent.click(card.getByRole('button', { name: 'Deactivate' }));
    await act(async () => vi.advanceTimersByTimeAsync(0));
    await answer('/api/app-status/deactivate', status(false));
    expect(card.getByRole('heading', { name: 'Inactive' })).toBeInTheDocument();

    await answer('/api/app-status/heartbeat', status(true));
    expect(card.getByRole('heading', { name: 'Inactive' })).toBeInTheDocument();
    expect(card.getByRole('button', { name: 'Activate' })).toBeInTheDocument();
    expect(card.queryByText('Active', { exact: true })).toBeNull();
  });

  it('a heartbeat due while Deactivate is on its way cannot undo it', async () => {
    const { card, waiting, answer } = renderActive();
    await act(async () => vi.advanceTimersByTimeAsync(HEARTBEAT_INTERVAL_MS - 1000));
    fireEvent.click(card.getByRole('button', { name: 'Deactivate' }));
    await act(async () => vi.advanceTimersByTimeAsync(1000));
    // Any heartbeat sent now is read before the Deactivate and answered after it.
    await answer('/api/app-status/deactivate', status(false));
    await answer('/api/app-status/heartbeat', status(true));
    expect(card.getByRole('heading', { name: 'Inactive' })).toBeInTheDocument();
    expect(waiting).toEqual([]);
  });

  it('a heartbeat answered before a switch still refreshes the status', async () => {
    const { card, answer } = renderActive();
    await act(async () => vi.advanceTimersByTimeAsync(HEARTBEAT_INTERVAL_MS));
    await answer('/api/app-status/heartbeat', { ...status(true), isMonitoring: false });
    expect(card.queryByText('Monitoring')).toBeNull();
  });
});
