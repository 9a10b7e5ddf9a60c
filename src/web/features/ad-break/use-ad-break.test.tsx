// @vitest-environment jsdom
import { onlineManager, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, render, screen } from '@testing-library/react';
import { Toaster } from '../../components/ui/toaster';
import { getQueryFn } from '../../lib/api';
import { dismissAllToasts } from '../../lib/toast';
import { PhotoViewer } from '../gallery';
import { UpgradeModal } from '../subscription';
import { useAdBreak } from './use-ad-break';

const T0 = new Date('2025-03-01T10:00:00Z').getTime();

function jsonResponse(body: unknown, status = 200) {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

function Harness() {
  const { start, element } = useAdBreak();
  return (
    <>
      <button type="button" onClick={() => start('Instagram')}>
        Instagram (15s)
      </button>
      {element}
    </>
  );
}

function setup({
  subscribed = true,
  startStatus = 201,
  offline = false,
  planUnreadable = false,
  appActive = true,
  planHeld = undefined as Promise<void> | undefined,
} = {}) {
  const fetchMock = vi.fn(async (url: string, init?: RequestInit) => {
    if (url === '/api/subscription' && planHeld) await planHeld;
    if (offline && init?.method === 'POST') throw new TypeError('Failed to fetch');
    if (url === '/api/photos') return jsonResponse([]);
    if (url === '/api/subscription' && planUnreadable)
      return jsonResponse({ message: 'Too many requests. Please wait a few minutes.' }, 429);
    if (url === '/api/subscription')
      return jsonResponse(subscribed ? { status: 'active', tier: 'premium', endDate: '2099-01-01' } : {});
    if (url === '/api/app-status') return jsonResponse({ isActive: appActive });
    if (url === '/api/ad-breaks' && init?.method === 'POST') {
      if (startStatus === 403)
        return jsonResponse({ message: 'Premium subscription required for ad overlay' }, startStatus);
      if (startStatus !== 201) return jsonResponse({ message: 'Too many ad breaks' }, startStatus);
      return jsonResponse(
        {
          id: 'brk-1',
          app: 'Instagram',
          durationSeconds: 15,
          startedAt: new Date(T0).toISOString(),
          endsAt: new Date(T0 + 15_000).toISOString(),
        },
        201,
      );
    }
    if (url === '/api/activities' && init?.method === 'POST')
      return jsonResponse(
        { recorded: true, skipReward: 2, pointsAdded: 3, message: 'Ad skipped! +2 pts', newAchievements: [] },
        201,
      );
    return jsonResponse({});
  });
  vi.stubGlobal('fetch', fetchMock);
  const qc = new QueryClient({
    defaultOptions: { queries: { queryFn: getQueryFn({ on401: 'throw' }), retry: false, staleTime: Infinity } },
  });
  render(
    <QueryClientProvider client={qc}>
      <Harness />
      <Toaster />
    </QueryClientProvider>,
  );
  /** The subscription and app status answered (the hook gates on them). */
  const loaded = () =>
    act(async () => {
      await vi.waitFor(() => {
        expect(qc.getQueryData(['/api/subscription'])).toBeDefined();
        expect(qc.getQueryData(['/api/app-status'])).toBeDefined();
      });
    });
  const calls = (url: string) => fetchMock.mock.calls.filter(([u, init]) => u === url && init?.method === 'POST');
  return { calls, loaded };
}

async function advance(ms: number) {
  for (let left = ms; left > 0; left -= 100) await act(async () => vi.advanceTimersByTime(Math.min(100, left)));
  await act(async () => vi.advanceTimersByTime(0));
}

// The chunks a break and the upgrade prompt load at their first use, here before the fake clock.
beforeAll(() => Promise.all([import('./ad-overlay'), PhotoViewer.preload(), UpgradeModal.preload()]));
beforeEach(() => vi.useFakeTimers({ now: T0 }));
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  onlineManager.setOnline(true);
  dismissAllToasts();
});

describe('useAdBreak', () => {
  it('asks the server for the ad break first and records it under that id', async () => {
    const { calls, loaded } = setup();
    await loaded();
    // By its text: while the overlay is up the button behind is inert and aria-hidden, and a
    // hidden element has no accessible name. (A browser would not even deliver the click.)
    const press = () => act(async () => fireEvent.click(screen.getByText('Instagram (15s)')));
    await press();
    await advance(0);
    expect(calls('/api/ad-breaks')).toHaveLength(1);
    expect(JSON.parse(String(calls('/api/ad-breaks')[0]![1]?.body))).toEqual({ app: 'Instagram' });
    expect(screen.getByTestId('viewer-countdown')).toHaveTextContent('0:15');
    // A second press while the ad runs starts nothing.
    await press();
    expect(calls('/api/ad-breaks')).toHaveLength(1);

    await advance(15_000);
    expect(calls('/api/activities')).toHaveLength(1);
    const [, init] = calls('/api/activities')[0]!;
    expect(new Headers(init?.headers).get('Idempotency-Key')).toBe('brk-1');
    expect(screen.queryByTestId('ad-overlay')).not.toBeInTheDocument();
  });

  it('opens the upgrade prompt without a subscription and starts no ad break', async () => {
    const { calls, loaded } = setup({ subscribed: false });
    await loaded();
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Instagram (15s)' })));
    await advance(0);
    expect(screen.getByText('Premium subscription required for ad overlay')).toBeInTheDocument();
    expect(calls('/api/ad-breaks')).toHaveLength(0);
  });

  it("waits for the plan's first answer: a free user's press made before it opens the prompt and starts no break", async () => {
    let answer!: () => void;
    const { calls } = setup({ subscribed: false, planHeld: new Promise<void>((resolve) => (answer = resolve)) });
    await advance(100);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Instagram (15s)' })));
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Instagram (15s)' })));
    await advance(100);
    expect(calls('/api/ad-breaks')).toHaveLength(0);
    await act(async () => answer());
    await advance(100);
    expect(screen.getByText('Premium subscription required for ad overlay')).toBeInTheDocument();
    expect(calls('/api/ad-breaks')).toHaveLength(0);
    expect(screen.queryByTestId('ad-overlay')).not.toBeInTheDocument();
  });

  it("starts a subscriber's break pressed before the plan's first answer once it comes, once", async () => {
    let answer!: () => void;
    const { calls } = setup({ planHeld: new Promise<void>((resolve) => (answer = resolve)) });
    await advance(100);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Instagram (15s)' })));
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Instagram (15s)' })));
    await act(async () => answer());
    await advance(100);
    expect(calls('/api/ad-breaks')).toHaveLength(1);
    expect(screen.getByTestId('viewer-countdown')).toHaveTextContent('0:15');
  });

  it("leaves a plan it could not read to the server: a paying user's break starts, no upgrade prompt", async () => {
    const { calls } = setup({ planUnreadable: true });
    await advance(100);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Instagram (15s)' })));
    await advance(100);
    expect(calls('/api/ad-breaks')).toHaveLength(1);
    expect(screen.queryByText('Premium subscription required for ad overlay')).not.toBeInTheDocument();
    expect(screen.getByTestId('viewer-countdown')).toHaveTextContent('0:15');
  });

  it('opens the upgrade prompt when the server refuses a break for want of a plan it could not read', async () => {
    const { calls } = setup({ planUnreadable: true, startStatus: 403 });
    await advance(100);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Instagram (15s)' })));
    await advance(100);
    expect(calls('/api/ad-breaks')).toHaveLength(1);
    expect(screen.getByText('Premium subscription required for ad overlay')).toBeInTheDocument();
    expect(screen.queryByTestId('ad-overlay')).not.toBeInTheDocument();
    expect(calls('/api/app-status/activate')).toHaveLength(0);
  });

  it('shows no overlay when the server does not start the ad break', async () => {
    const { calls, loaded } = setup({ startStatus: 429 });
    await loaded();
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Instagram (15s)' })));
    await advance(0);
    expect(calls('/api/ad-breaks')).toHaveLength(1);
    expect(screen.queryByTestId('ad-overlay')).not.toBeInTheDocument();
    await advance(20_000);
    expect(calls('/api/activities')).toHaveLength(0);
  });

  it('says at once that an ad pressed without a connection cannot start, and never starts it later by itself', async () => {
    const { calls, loaded } = setup({ offline: true, appActive: false });
    await loaded();
    act(() => onlineManager.setOnline(false));
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Instagram (15s)' })));
    await advance(0);
    expect(screen.getByRole('alert')).toHaveTextContent('Network error. Please try again.');
    expect(calls('/api/ad-breaks')).toHaveLength(1);
    // Nor is monitoring switched on later by an activation left waiting for the connection.
    expect(calls('/api/app-status/activate')).toHaveLength(0);

    await act(async () => onlineManager.setOnline(true));
    await advance(20_000);
    expect(calls('/api/ad-breaks')).toHaveLength(1);
    expect(screen.queryByTestId('ad-overlay')).not.toBeInTheDocument();
    expect(calls('/api/app-status/activate')).toHaveLength(0);
  });

  it('turns the app status on once the server has started the break', async () => {
    const { calls, loaded } = setup({ appActive: false });
    await loaded();
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Instagram (15s)' })));
    await advance(0);
    expect(screen.getByTestId('viewer-countdown')).toHaveTextContent('0:15');
    expect(calls('/api/app-status/activate')).toHaveLength(1);
  });
});
