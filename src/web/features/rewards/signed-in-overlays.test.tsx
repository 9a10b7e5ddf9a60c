// @vitest-environment jsdom
import type { User } from '@contract/auth';
import { HEARTBEAT_INTERVAL_MS } from '@contract/app-status-timing';
import { QueryClient, QueryClientProvider, useQuery } from '@tanstack/react-query';
import { act, render } from '@testing-library/react';
import { forgetServerClock } from '../../lib/server-clock';
import { userQueryOptions } from '../auth';
import { SignedInOverlays } from './signed-in-overlays';

vi.mock('../onboarding', () => ({ OnboardingModal: () => null }));

const setVisibility = (state: 'visible' | 'hidden') => {
  Object.defineProperty(document, 'visibilityState', { value: state, configurable: true });
  document.dispatchEvent(new Event('visibilitychange'));
};

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  forgetServerClock();
  Reflect.deleteProperty(document, 'visibilityState');
});

const HOUR = 60 * 60_000;

/**
 * Fake timers from `deviceNow` and a server whose answers' Date header is `serverAheadMs` from the
 * device's clock. Returns the device times at which the login was asked.
 */
function startPage(deviceNow: Date, serverAheadMs = 0): string[] {
  vi.useFakeTimers({ now: deviceNow, toFake: ['Date', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
  const logins: string[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      if (url === '/api/rewards/record' && JSON.parse(String(init?.body)).type === 'login') {
        logins.push(new Date().toString());
      }
      return new Response(
        JSON.stringify({
          type: 'login',
          points: 0,
          awarded: false,
          message: 'Welcome back!',
          currentStreak: 1,
          day: '2026-03-10',
          newAchievements: [],
        }),
        {
          status: 200,
          headers: {
            'content-type': 'application/json',
            date: new Date(Date.now() + serverAheadMs).toUTCString(),
          },
        },
      );
    }),
  );
  render(
    <QueryClientProvider client={new QueryClient()}>
      <SignedInOverlays />
    </QueryClientProvider>,
  );
  return logins;
}

describe('the daily login reward', () => {
  it('is asked again when the local day changes under an open page, and when a page hidden overnight is shown', async () => {
    // 23:00 on the device's own clock, whatever zone the tests run in.
    const logins = startPage(new Date(2026, 2, 10, 23, 0, 0));
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(logins).toHaveLength(1);
    // The same day: asked once, whatever the page does.
    await act(() => vi.advanceTimersByTimeAsync(55 * 60_000));
    setVisibility('hidden');
    setVisibility('visible');
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(logins).toHaveLength(1);
    // Past midnight with the page left open (a phone's app, a desktop tab): the new day's login.
    await act(() => vi.advanceTimersByTimeAsync(6 * 60_000));
    expect(logins).toHaveLength(2);
    // Hidden for a day and more: nothing while hidden, the day's login as soon as it is shown.
    setVisibility('hidden');
    await act(() => vi.advanceTimersByTimeAsync(26 * 60 * 60_000));
    expect(logins).toHaveLength(2);
    setVisibility('visible');
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(logins).toHaveLength(3);
  });

  it("is asked at the server's midnight, not at the midnight of a device clock 3 hours fast", async () => {
    const logins = startPage(new Date(2026, 2, 10, 23, 0, 0), -3 * HOUR);
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(logins).toHaveLength(1);
    // The device's midnight is 21:00 at the server, a day already paid: nothing is asked.
    await act(() => vi.advanceTimersByTimeAsync(2 * HOUR));
    expect(logins).toHaveLength(1);
    await act(() => vi.advanceTimersByTimeAsync(HOUR + 58 * 60_000));
    expect(logins).toHaveLength(1);
    // The server's midnight, 03:00 on the device.
    await act(() => vi.advanceTimersByTimeAsync(2 * 60_000));
    expect(logins).toHaveLength(2);
  });
});

describe('the daily login reward that could not be recorded', () => {
  const answered = (status: number, body: unknown) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  const paid = () =>
    answered(200, {
      type: 'login',
      points: 10,
      awarded: true,
      message: 'Welcome back!',
      currentStreak: 2,
      day: '2026-03-10',
      newAchievements: [],
    });

  function start(answers: Array<() => Promise<Response>>) {
    vi.useFakeTimers({
      now: new Date(2026, 2, 10, 9, 0, 0),
      toFake: ['Date', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'],
    });
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const logins = vi.fn((): Promise<Response> => (answers.shift() ?? (async () => paid()))());
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => (url === '/api/rewards/record' ? logins() : answered(200, {}))),
    );
    render(
      <QueryClientProvider client={new QueryClient()}>
        <SignedInOverlays />
      </QueryClientProvider>,
    );
    return logins;
  }

  it('opened offline, the day is asked again once the connection is back, and only until it is paid', async () => {
    const logins = start([() => Promise.reject(new TypeError('Failed to fetch'))]);
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(logins).toHaveBeenCalledTimes(1);
    await act(async () => window.dispatchEvent(new Event('online')));
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(logins).toHaveBeenCalledTimes(2);
    // Paid: the rest of the day asks nothing.
    await act(() => vi.advanceTimersByTimeAsync(10 * 60_000));
    window.dispatchEvent(new Event('online'));
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(logins).toHaveBeenCalledTimes(2);
  });

  it('a server restarting behind its proxy (502 page) is asked again at the next check, once a check', async () => {
    const gateway = async () => new Response('<html><body>502 Bad Gateway</body></html>', { status: 502 });
    const logins = start([gateway, gateway]);
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(logins).toHaveBeenCalledTimes(1);
    await act(() => vi.advanceTimersByTimeAsync(60_000));
    expect(logins).toHaveBeenCalledTimes(2);
    await act(() => vi.advanceTimersByTimeAsync(60_000));
    expect(logins).toHaveBeenCalledTimes(3);
    await act(() => vi.advanceTimersByTimeAsync(5 * 60_000));
    expect(logins).toHaveBeenCalledTimes(3);
  });

  it('a refusal that would only repeat is not asked again that day', async () => {
    const logins = start([async () => answered(400, { message: 'Invalid input' })]);
    await act(() => vi.advanceTimersByTimeAsync(0));
    await act(() => vi.advanceTimersByTimeAsync(10 * 60_000));
    window.dispatchEvent(new Event('online'));
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(logins).toHaveBeenCalledTimes(1);
  });
});

describe('a request outside the caches answered 401 (the session ended elsewhere)', () => {
  it.each([
    ['the app-status heartbeat', '/api/app-status/heartbeat'],
    ['the daily login', '/api/rewards/record'],
  ])('%s asks who is signed in, as any other 401 does', async (_, refused) => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const asked: string[] = [];
    vi.spyOn(console, 'error').mockImplementation(() => {});
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        asked.push(url);
        if (url === refused) return new Response('{"message":"Unauthorized"}', { status: 401 });
        // The other one fails as a server fault would, which is not a reason to ask.
        return new Response('', { status: 503 });
      }),
    );
    const qc = new QueryClient();
    qc.setQueryData(['/api/app-status'], { isActive: true, isMonitoring: true, activeSince: null, lastActivity: null });
    qc.setQueryData(['/api/auth/user'], { user: { id: 'u1' } as User });
    // The shell's reader of who is signed in (kept fresh here, so only an invalidation asks).
    function WhoIsSignedIn() {
      useQuery({ ...userQueryOptions(), staleTime: Infinity });
      return null;
    }
    render(
      <QueryClientProvider client={qc}>
        <WhoIsSignedIn />
        <SignedInOverlays />
      </QueryClientProvider>,
    );
    await act(() => vi.advanceTimersByTimeAsync(HEARTBEAT_INTERVAL_MS));
    expect(asked).toContain(refused);
    expect(asked.filter((u) => u === '/api/auth/user')).toHaveLength(1);
  });
});
