// @vitest-environment jsdom
import { act, render, screen } from '@testing-library/react';
import { WhenIdle } from './when-idle';

/**
 * The shell's parts that the first screen does not show wait for the browser's first idle moment,
 * so their code and mount work are not part of the load's first tasks.
 */
describe('WhenIdle', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('renders its children only once the browser reports idle', () => {
    const pending: IdleRequestCallback[] = [];
    vi.stubGlobal('requestIdleCallback', (cb: IdleRequestCallback) => pending.push(cb));
    vi.stubGlobal('cancelIdleCallback', () => {});
    const { unmount } = render(
      <WhenIdle>
        <p>update prompt</p>
      </WhenIdle>,
    );
    expect(screen.queryByText('update prompt')).toBeNull();
    expect(pending).toHaveLength(1);
    act(() => pending[0]!({ didTimeout: false, timeRemaining: () => 10 }));
    expect(screen.getByText('update prompt')).toBeInTheDocument();
    unmount();
  });

  it('falls back to the next task where there is no requestIdleCallback (Safari)', () => {
    vi.useFakeTimers();
    vi.stubGlobal('requestIdleCallback', undefined);
    render(
      <WhenIdle>
        <p>update prompt</p>
      </WhenIdle>,
    );
    expect(screen.queryByText('update prompt')).toBeNull();
    act(() => vi.advanceTimersByTime(1));
    expect(screen.getByText('update prompt')).toBeInTheDocument();
    vi.useRealTimers();
  });
});
