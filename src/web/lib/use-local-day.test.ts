// @vitest-environment jsdom
import { act, renderHook } from '@testing-library/react';
import { useLocalDay } from './use-local-day';

afterEach(() => vi.useRealTimers());

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
});
