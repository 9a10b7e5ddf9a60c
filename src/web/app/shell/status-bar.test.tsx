// @vitest-environment jsdom
import { act, render, screen } from '@testing-library/react';
import { StatusBar } from './status-bar';

beforeEach(() => {
  vi.useFakeTimers({ now: new Date(2026, 0, 5, 13, 4, 58) });
});
afterEach(() => vi.useRealTimers());

describe('StatusBar', () => {
  it('shows a 12-hour h:mm clock refreshed every second', () => {
    render(<StatusBar />);
    expect(screen.getByTestId('clock')).toHaveTextContent(/^1:04$/);
    act(() => vi.advanceTimersByTime(1000));
    expect(screen.getByTestId('clock')).toHaveTextContent(/^1:04$/);
    act(() => vi.advanceTimersByTime(1000));
    expect(screen.getByTestId('clock')).toHaveTextContent(/^1:05$/);
  });

  it('shows midnight as 12 and the Active badge only while active', () => {
    vi.setSystemTime(new Date(2026, 0, 5, 0, 7, 0));
    const { rerender } = render(<StatusBar />);
    expect(screen.getByTestId('clock')).toHaveTextContent(/^12:07$/);
    expect(screen.queryByText('Active')).toBeNull();
    rerender(<StatusBar active />);
    expect(screen.getByText('Active')).toBeInTheDocument();
  });
});
