// @vitest-environment jsdom
import { act, renderHook } from '@testing-library/react';
import { forgetServerClock, noteServerDate } from './server-clock';
import { useLocalDay } from './use-local-day';

afterEach(() => {
  vi.useRealTimers();
  forgetServerClock();
});

const HOUR = 60 * 60_000;
/** An answer whose Date header says the server's time is `offsetMs` from the device's. */
const serverAnswer = (offsetMs: number) => ({
  headers: new Headers({ date: new Date(Date.now() + offsetMs).toUTCString() }),
});

describe('useLocalDay', () => {
  it("changes at the browser's midnight, and at once on a page shown again after its timers were frozen", () => {
    vi.useFakeTimers({ now: new Date(2026, 2, 10, 23, 59, 59) });
    const { result } = renderHook(() => useLocalDay());
    expect(result.current).toBe('2026-03-10');
    act(() => vi.advanceTimersByTime(999));
    expect(result.current).toBe('2026-03-10');
    act(() => vi.advanceTimersByTime(1));
    expect(result.current).toBe('2026-03-11');

    // A phone froze the hidden page: two days pass with no timer fired.
    vi.setSystemTime(new Date(2026, 2, 13, 8, 0, 0));
    expect(result.current).toBe('2026-03-11');
    vi.spyOn(document, 'visibilityState', 'get').mockReturnValue('visible');
    act(() => {
      document.dispatchEvent(new Event('visibilitychange'));
    });
    expect(result.current).toBe('2026-03-13');
  });

  it("counts the day by the server's clock, learnt after the screen was drawn, when the device's is hours off", () => {
    // The device's clock is 3 hours fast: 23:30 on it is 20:30 at the server.
    vi.useFakeTimers({ now: new Date(2026, 2, 10, 23, 30, 0) });
    const { result } = renderHook(() => useLocalDay());
    noteServerDate(serverAnswer(-3 * HOUR));
    act(() => vi.advanceTimersByTime(60_000));
    expect(result.current).toBe('2026-03-10');
    // The device's midnight is the server's 21:00: still the day the server pays and charts.
    act(() => vi.advanceTimersByTime(HOUR));
    expect(result.current).toBe('2026-03-10');
    // The server's midnight (03:00 on the device, less the half second the header's whole seconds add).
    act(() => vi.advanceTimersByTime(2 * HOUR + 29 * 60_000 - 1_000));
    expect(result.current).toBe('2026-03-10');
    act(() => vi.advanceTimersByTime(500));
    expect(result.current).toBe('2026-03-11');
  });

  it('sees the new day within a minute when its timer stood still while the device slept', () => {
    vi.useFakeTimers({ now: new Date(2026, 2, 10, 22, 0, 0) });
    const { result } = renderHook(() => useLocalDay());
    // A laptop closed at 22:00 and opened at 07:00: the calendar moved, the timers did not, and a
    // page that stayed visible gets no visibilitychange.
    vi.setSystemTime(new Date(2026, 2, 11, 7, 0, 0));
    act(() => vi.advanceTimersByTime(60_000));
    expect(result.current).toBe('2026-03-11');
  });
});
