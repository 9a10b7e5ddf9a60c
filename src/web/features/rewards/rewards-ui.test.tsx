// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, render, screen } from '@testing-library/react';
import { Toaster } from '../../components/ui/toaster';
import { useSetAppActive } from './app-status-query';
import { notify, resetNotifications, showReward, useNotifications } from './notifications-store';

const advance = (ms: number) => act(() => vi.advanceTimersByTime(ms));

beforeEach(() => {
  vi.useFakeTimers();
  resetNotifications();
});
afterEach(() => vi.useRealTimers());

describe('RewardPopup', () => {
  it('shows a reward for 2.5 s', () => {
    render(<Toaster />);
    act(() => showReward({ type: 'activation', points: 15, message: 'App activated!' }));
    expect(screen.getByTestId('reward-popup')).toHaveTextContent('+15 pts');
    expect(screen.getByTestId('reward-popup')).toHaveTextContent('App activated!');
    advance(2499);
    expect(screen.getByTestId('reward-popup')).toBeInTheDocument();
    advance(1);
    expect(screen.queryByTestId('reward-popup')).toBeNull();
  });

  it('a newer reward replaces the shown one and gets its own 2.5 s', () => {
    render(<Toaster />);
    act(() => showReward({ type: 'login', points: 10, message: 'Welcome back!' }));
    advance(2000);
    act(() => showReward({ type: 'points', points: 3, message: 'Ad skipped! +3 pts' }));
    expect(screen.getByTestId('reward-popup')).toHaveTextContent('Ad skipped! +3 pts');
    advance(2000);
    expect(screen.getByTestId('reward-popup')).toBeInTheDocument();
    advance(500);
    expect(screen.queryByTestId('reward-popup')).toBeNull();
  });
});

describe('toasts while the page is hidden', () => {
  const visibility = (state: DocumentVisibilityState) =>
    act(() => {
      Object.defineProperty(document, 'visibilityState', { value: state, configurable: true });
      document.dispatchEvent(new Event('visibilitychange'));
    });
  afterEach(() => {
    visibility('visible');
    Reflect.deleteProperty(document, 'visibilityState');
  });

  it('wait until the page is shown again, then play in turn with their full time', () => {
    render(<Toaster />);
    visibility('hidden');
    // The end of an ad break in another tab: its popup and notification.
    act(() => showReward({ type: 'points', points: 3, message: 'Ad skipped! +3 pts' }));
    act(() => notify('points', '+3 points earned!'));
    advance(10_000);
    expect(screen.queryByTestId('reward-popup')).toBeNull();
    visibility('visible');
    expect(screen.getByTestId('reward-popup')).toHaveTextContent('Ad skipped! +3 pts');
    expect(screen.queryByTestId('notification-toast')).toBeNull();
    advance(2500);
    expect(screen.queryByTestId('reward-popup')).toBeNull();
    expect(screen.getByTestId('notification-toast')).toHaveTextContent('+3 points earned!');
    advance(3000);
    expect(screen.queryByTestId('notification-toast')).toBeNull();
  });

  it('a toast on screen when the page is hidden shows again, from its start, when it is back', () => {
    render(<Toaster />);
    act(() => showReward({ type: 'activation', points: 15, message: 'App activated!' }));
    advance(2000);
    visibility('hidden');
    advance(60_000);
    visibility('visible');
    expect(screen.getByTestId('reward-popup')).toHaveTextContent('App activated!');
    advance(2499);
    expect(screen.getByTestId('reward-popup')).toBeInTheDocument();
    advance(1);
    expect(screen.queryByTestId('reward-popup')).toBeNull();
  });
});

describe('NotificationToast', () => {
  it('shows the latest notification, one at a time, for 3 s', () => {
    render(<Toaster />);
    act(() => {
      notify('login', 'Welcome back!');
    });
    expect(screen.getByTestId('notification-toast')).toHaveTextContent('Welcome back!');
    act(() => {
      notify('activation', 'App activated!');
    });
    expect(screen.getAllByTestId('notification-toast')).toHaveLength(1);
    expect(screen.getByTestId('notification-toast')).toHaveTextContent('App activated!');
    advance(2999);
    expect(screen.getByTestId('notification-toast')).toBeInTheDocument();
    advance(1);
    expect(screen.queryByTestId('notification-toast')).toBeNull();
  });

  it('keeps only the latest 5 notifications, newest first', () => {
    let latest: ReturnType<typeof useNotifications> | undefined;
    function Probe() {
      latest = useNotifications();
      return null;
    }
    render(<Probe />);
    act(() => {
      for (let i = 1; i <= 7; i++) notify('points', `+${i} points earned!`);
    });
    expect(latest!.map((n) => n.message)).toEqual([
      '+7 points earned!',
      '+6 points earned!',
      '+5 points earned!',
      '+4 points earned!',
      '+3 points earned!',
    ]);
  });
});

describe('activation', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('shows its own 15 points and names the achievement it unlocked', async () => {
    const pointMaster = { id: 'point_master', name: 'Point Master', description: 'Earn 500 points', points: 75 };
    vi.stubGlobal(
      'fetch',
      vi.fn(
        async () =>
          new Response(
            JSON.stringify({
              status: { isActive: true, isMonitoring: true, lastActivity: null, activeSince: null },
              points: 90,
              message: 'Ready to save time!',
              newAchievements: [pointMaster],
            }),
            { status: 200, headers: { 'Content-Type': 'application/json' } },
          ),
      ),
    );
    let latest: ReturnType<typeof useNotifications> | undefined;
    let activate: ((active: boolean) => Promise<unknown>) | undefined;
    function Probe() {
      latest = useNotifications();
      activate = useSetAppActive().mutateAsync;
      return null;
    }
    render(
      <QueryClientProvider client={new QueryClient()}>
        <Toaster />
        <Probe />
      </QueryClientProvider>,
    );
    await act(() => activate!(true));
    expect(latest!.map((n) => n.message)).toEqual(['Achievement unlocked! Point Master', 'App activated!']);
    // The popup shows the newest: the achievement; the activation's was '+15 pts', never '+90 pts'.
    expect(screen.getByTestId('reward-popup')).toHaveTextContent('+75 pts');
    expect(screen.queryByText('+90 pts')).toBeNull();
  });
});
