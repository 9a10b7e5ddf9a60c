// @vitest-environment jsdom
import { QueryClient, QueryClientProvider, notifyManager, useQuery } from '@tanstack/react-query';
import { act, render, screen } from '@testing-library/react';
import { frameScheduler } from './frame-notify';

/**
 * On a first load several query answers resolve a few tasks apart; with TanStack Query's default
 * each one's notifications run in a task of their own, and each becomes a render of the screen.
 * The frame scheduler runs every batch scheduled before the next frame in one task.
 */
describe('frameScheduler', () => {
  const frames = new Map<number, () => void>();
  let nextFrame = 1;
  const raf = (cb: () => void) => {
    frames.set(nextFrame, cb);
    return nextFrame++;
  };
  const cancel = (id: number) => void frames.delete(id);
  const runFrames = () => {
    const due = [...frames.values()];
    frames.clear();
    for (const cb of due) cb();
  };

  beforeEach(() => {
    frames.clear();
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
    notifyManager.setScheduler((cb) => setTimeout(cb, 0));
  });

  it('runs every batch scheduled before the next frame together, once, at that frame', () => {
    const schedule = frameScheduler(raf, cancel);
    const ran: string[] = [];
    schedule(() => ran.push('a'));
    vi.advanceTimersByTime(5);
    schedule(() => ran.push('b'));
    schedule(() => ran.push('c'));
    expect(frames.size).toBe(1);
    vi.advanceTimersByTime(5);
    expect(ran).toEqual([]);
    runFrames();
    expect(ran).toEqual(['a', 'b', 'c']);
    // The fallback timer was cancelled with the flush: nothing runs twice.
    vi.advanceTimersByTime(1000);
    expect(ran).toEqual(['a', 'b', 'c']);
    schedule(() => ran.push('d'));
    expect(frames.size).toBe(1);
    runFrames();
    expect(ran).toEqual(['a', 'b', 'c', 'd']);
  });

  it('flushes after the fallback delay where no frame comes (a hidden tab)', () => {
    const schedule = frameScheduler(raf, cancel, 100);
    const ran: string[] = [];
    schedule(() => ran.push('a'));
    vi.advanceTimersByTime(99);
    expect(ran).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(ran).toEqual(['a']);
    expect(frames.size).toBe(0);
  });

  it('a failing listener does not stop the others; its error is thrown in a task of its own', () => {
    const schedule = frameScheduler(raf, cancel);
    const ran: string[] = [];
    schedule(() => {
      throw new Error('listener failed');
    });
    schedule(() => ran.push('b'));
    runFrames();
    expect(ran).toEqual(['b']);
    expect(() => vi.runOnlyPendingTimers()).toThrow('listener failed');
  });

  it('two answers resolving in separate tasks render the screen once, not once each', async () => {
    notifyManager.setScheduler(frameScheduler(raf, cancel));
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const answers: Record<string, (v: string) => void> = {};
    const ask = (key: string) => new Promise<string>((resolve) => (answers[key] = resolve));
    let renders = 0;
    function Screen() {
      renders++;
      const user = useQuery({ queryKey: ['user'], queryFn: () => ask('user') });
      const photos = useQuery({ queryKey: ['photos'], queryFn: () => ask('photos') });
      return (
        <p>
          {user.data ?? '…'} {photos.data ?? '…'}
        </p>
      );
    }
    render(
      <QueryClientProvider client={client}>
        <Screen />
      </QueryClientProvider>,
    );
    // Observers subscribe and the fetches start: their notifications go out with the first frame.
    await act(async () => {
      runFrames();
      await vi.advanceTimersByTimeAsync(0);
    });
    const before = renders;
    await act(async () => {
      answers.user!('Ada');
      await vi.advanceTimersByTimeAsync(1);
      answers.photos!('10 photos');
      await vi.advanceTimersByTimeAsync(1);
    });
    expect(renders).toBe(before);
    await act(async () => runFrames());
    expect(screen.getByText('Ada 10 photos')).toBeInTheDocument();
    expect(renders).toBe(before + 1);
    client.clear();
  });
});
