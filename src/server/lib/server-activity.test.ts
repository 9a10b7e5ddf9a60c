import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EventEmitter } from 'node:events';
import { createServerActivity, type ServerActivity } from './server-activity';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A request counted in as the app counts it (its response tracked); the function answered closes it. */
function request(activity: ServerActivity) {
  const response = new EventEmitter();
  activity.trackRequest(response);
  return () => void response.emit('close');
}

/** An activity on the faked clock, and an upload request that has just been answered. */
function afterUpload(graceMs = 100, maxWaitMs = 5000) {
  const activity = createServerActivity({ graceMs, maxWaitMs, now: () => Date.now() });
  const leaveRequest = request(activity);
  const leaveUpload = activity.enterUpload();
  const answer = () => {
    leaveUpload();
    leaveRequest();
  };
  return { activity, answer };
}

describe('server activity', () => {
  it('holds work through an upload and the gallery refresh that follows its answer, then runs it at once', () => {
    const { activity, answer } = afterUpload();
    const ranAt: number[] = [];
    const start = Date.now();
    activity.whenQuiet(() => ranAt.push(Date.now() - start));
    vi.advanceTimersByTime(30);
    expect(ranAt).toEqual([]); // the upload is still in flight
    answer();
    expect(activity.quiet()).toBe(false); // the grace has begun
    vi.advanceTimersByTime(40);
    const leaveListing = request(activity); // the client's listing, 40 ms after the answer
    vi.advanceTimersByTime(80);
    expect(ranAt).toEqual([]); // the grace is over, but the listing is still being served
    leaveListing();
    expect(ranAt).toEqual([150]);
    expect(activity.quiet()).toBe(true);
  });

  it('runs work when the grace after the last upload ends, with no request in flight', () => {
    const { activity, answer } = afterUpload(100);
    answer();
    let ran = 0;
    activity.whenQuiet(() => (ran += 1));
    vi.advanceTimersByTime(99);
    expect(ran).toBe(0);
    vi.advanceTimersByTime(1);
    expect(ran).toBe(1);
  });

  it('runs work after at most maxWaitMs however busy the server stays', () => {
    const activity = createServerActivity({ graceMs: 100, maxWaitMs: 5000, now: () => Date.now() });
    request(activity); // never answered
    let ran = 0;
    activity.whenQuiet(() => (ran += 1));
    vi.advanceTimersByTime(4999);
    expect(ran).toBe(0);
    vi.advanceTimersByTime(1);
    expect(ran).toBe(1);
    vi.advanceTimersByTime(10_000);
    expect(ran).toBe(1);
  });

  it('runs work at once on a quiet server, and never twice', () => {
    const activity = createServerActivity({ now: () => Date.now() });
    let ran = 0;
    activity.whenQuiet(() => (ran += 1));
    expect(ran).toBe(1);
    request(activity)();
    vi.advanceTimersByTime(10_000);
    expect(ran).toBe(1);
  });

  it('wakes its listeners when it turns quiet after someone found it busy, and only then', () => {
    const { activity, answer } = afterUpload(100);
    let woken = 0;
    activity.onQuiet(() => (woken += 1));
    answer();
    vi.advanceTimersByTime(200);
    expect(woken).toBe(0); // nobody asked
    const leave = request(activity);
    expect(activity.quiet()).toBe(false);
    expect(activity.quietIn()).toBe(Infinity);
    leave();
    expect(woken).toBe(1);
    // Found busy in the grace alone: woken when it ends.
    const again = afterUpload(100);
    let wokenAgain = 0;
    again.activity.onQuiet(() => (wokenAgain += 1));
    again.answer();
    vi.advanceTimersByTime(30);
    expect(again.activity.quiet()).toBe(false);
    expect(again.activity.quietIn()).toBe(70);
    vi.advanceTimersByTime(69);
    expect(wokenAgain).toBe(0);
    vi.advanceTimersByTime(1);
    expect(wokenAgain).toBe(1);
  });

  it('counts a tracked response until it closes, each with the one shared listener', () => {
    const activity = createServerActivity({ now: () => Date.now() });
    const a = new EventEmitter();
    const b = new EventEmitter();
    activity.trackRequest(a);
    activity.trackRequest(b);
    expect(activity.requests).toBe(2);
    expect(a.listeners('close')[0]).toBe(b.listeners('close')[0]);
    let ran = 0;
    activity.whenQuiet(() => (ran += 1));
    a.emit('close');
    expect(activity.requests).toBe(1);
    expect(ran).toBe(0);
    b.emit('close');
    expect(activity.requests).toBe(0);
    expect(ran).toBe(1);
  });

  it('counts an upload out once however often it is told, and close runs the waiting work', () => {
    const activity = createServerActivity({ graceMs: 0, now: () => Date.now() });
    const a = activity.enterUpload();
    const b = activity.enterUpload();
    a();
    a();
    expect(activity.uploads).toBe(1);
    let ran = 0;
    activity.whenQuiet(() => (ran += 1));
    activity.close();
    expect(ran).toBe(1);
    b();
    vi.advanceTimersByTime(10_000);
    expect(ran).toBe(1);
  });

  it("logs the failure of work that runs later, an asynchronous work's rejection included", async () => {
    // The queue's statistics renewal runs after the answer: its error must be logged, not lost
    // (an unhandled rejection, or nothing at all).
    const logged: unknown[] = [];
    const activity = createServerActivity({ graceMs: 0, now: () => Date.now(), log: (err) => logged.push(err) });
    const leave = request(activity);
    activity.whenQuiet(() => {
      throw new Error('at once');
    });
    activity.whenQuiet(() => Promise.reject(new Error('later')));
    leave();
    await vi.waitFor(() => expect(logged).toHaveLength(2));
    expect(logged.map((e) => (e as Error).message)).toEqual(['at once', 'later']);
  });
});
