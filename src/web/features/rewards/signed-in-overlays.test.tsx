// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, render } from '@testing-library/react';
import { forgetServerClock } from '../../lib/server-clock';
import { SignedInOverlays } from './signed-in-overlays';

vi.mock('../onboarding', () => ({ OnboardingModal: () => null }));

const setVisibility = (state: 'visible' | 'hidden') => {
  Object.defineProperty(document, 'visibilityState', { value: state, configurable: true });
  document.dispatchEvent(new Event('visibilitychange'));
};

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
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
