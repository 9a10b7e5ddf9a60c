import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RESTART_FIRST_MS, superviseWorkers, type SupervisedProcess } from './supervisor';

/** A server process the test starts, stops and crashes by hand. */
class FakeProcess implements SupervisedProcess {
  private listening: Array<() => void> = [];
  private exits: Array<(code: number | null, signal: string | null) => void> = [];
  readonly signals: NodeJS.Signals[] = [];
  alive = true;
  constructor(readonly pid: number) {}
  onListening(listener: () => void) {
    this.listening.push(listener);
  }
  onExit(listener: (code: number | null, signal: string | null) => void) {
    this.exits.push(listener);
  }
  kill(signal: NodeJS.Signals) {
    this.signals.push(signal);
  }
  listen() {
    for (const l of this.listening) l();
  }
  exit(code: number | null, signal: string | null = null) {
    this.alive = false;
    for (const l of this.exits) l(code, signal);
  }
}

function cluster(count: number) {
  const forked: FakeProcess[] = [];
  const logs: string[] = [];
  const exited: number[] = [];
  const workers = superviseWorkers({
    count,
    fork: () => {
      const p = new FakeProcess(100 + forked.length);
      forked.push(p);
      return p;
    },
    log: (m) => logs.push(m),
    error: (m) => logs.push(`error: ${m}`),
    exit: (code) => exited.push(code),
  });
  workers.start();
  return { workers, forked, logs, exited, alive: () => forked.filter((p) => p.alive) };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('superviseWorkers (WEB_CONCURRENCY)', () => {
  it('stops everything when a process fails to start before any has served (a bad setting)', () => {
    const c = cluster(2);
    c.forked[0]!.exit(1);
    expect(c.logs).toEqual(['error: a server process failed to start (1); stopping']);
    expect(c.forked[1]!.signals).toEqual(['SIGTERM']);
    expect(c.exited).toEqual([]);
    c.forked[1]!.exit(0);
    expect(c.exited).toEqual([1]);
  });

  it('replaces a process that crashed while serving', () => {
    const c = cluster(2);
    for (const p of c.forked) p.listen();
    c.forked[0]!.exit(null, 'SIGKILL');
    expect(c.logs[0]).toMatch(/^server process 100 exited \(SIGKILL\); starting another in \d+ ms$/);
    vi.runOnlyPendingTimers();
    expect(c.forked).toHaveLength(3);
    c.forked[2]!.listen();
    expect(c.alive()).toHaveLength(2);
    expect(c.exited).toEqual([]);
  });

  it('keeps trying a replacement that fails to start, with the others serving, until one starts', () => {
    const c = cluster(2);
    for (const p of c.forked) p.listen();
    c.forked[0]!.exit(null, 'SIGKILL');
    vi.runOnlyPendingTimers();
    // The database or the bucket is away for a moment: the replacement cannot open it and exits.
    c.forked[2]!.exit(1);
    expect(c.forked[1]!.signals).toEqual([]);
    expect(c.exited).toEqual([]);
    expect(c.logs.at(-1)).toMatch(/^a replacement server process failed to start \(1\); trying again in \d+ ms$/);
    vi.runOnlyPendingTimers();
    c.forked[3]!.exit(1);
    vi.runOnlyPendingTimers();
    c.forked[4]!.listen();
    expect(c.alive().map((p) => p.pid)).toEqual([101, 104]);
    expect(c.exited).toEqual([]);
  });

  it('waits longer between replacements while they keep failing, and starts over once one is stable', () => {
    const c = cluster(1);
    c.forked[0]!.listen();
    const pauses: number[] = [];
    for (let i = 0; i < 6; i++) {
      c.alive()[0]!.exit(1);
      pauses.push(Number(/in (\d+) ms/.exec(c.logs.at(-1)!)![1]));
      vi.runOnlyPendingTimers();
    }
    expect(pauses).toEqual([2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
    c.alive()[0]!.listen();
    vi.advanceTimersByTime(61_000);
    c.alive()[0]!.exit(null, 'SIGSEGV');
    expect(c.logs.at(-1)).toContain(`starting another in ${RESTART_FIRST_MS} ms`);
  });

  it('a stop passes SIGTERM to every process, starts no replacement, and exits once all have', () => {
    const c = cluster(2);
    for (const p of c.forked) p.listen();
    c.forked[0]!.exit(null, 'SIGKILL');
    c.workers.stop();
    expect(c.forked[1]!.signals).toEqual(['SIGTERM']);
    vi.runAllTimers();
    expect(c.forked).toHaveLength(2);
    c.forked[1]!.exit(0);
    expect(c.exited).toEqual([0]);
  });
});
