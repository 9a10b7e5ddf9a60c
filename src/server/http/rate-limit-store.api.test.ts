import type { FastifyRateLimitStore } from '@fastify/rate-limit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, testDbKind, type TestApp } from '../test/harness';
import { postgresRateLimitStore } from './rate-limit-store';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  vi.restoreAllMocks();
  await t?.close();
});

const MINUTE = 60_000;

/** One hit through a process's store: the window's count and the ms left in it. */
function hit(store: FastifyRateLimitStore, key: string, windowMs: number) {
  return new Promise<{ current: number; ttl: number }>((resolve, reject) =>
    store.incr(key, (err, r) => (err ? reject(err) : resolve(r!)), windowMs, 100),
  );
}

describe(`shared request limits (${testDbKind})`, () => {
  it("count one window across machines whose clocks disagree, by the database's clock", async () => {
    const Store = postgresRateLimitStore(t.database.db);
    // Two machines on one database; the second's clock is 20 minutes ahead.
    const here = new Store({} as never);
    const ahead = new Store({} as never);
    const skewed = <T>(ms: number, work: () => Promise<T>) => {
      const real = Date.now.bind(Date);
      const spy = vi.spyOn(Date, 'now').mockImplementation(() => real() + ms);
      return work().finally(() => spy.mockRestore());
    };
    const key = `skewed clocks ${Math.random()}`;
    expect((await hit(here, key, 15 * MINUTE)).current).toBe(1);
    // By its own clock the window had ended, so it opened a new one: a client spreading its
    // requests over the machines had a budget per clock.
    const there = await skewed(20 * MINUTE, () => hit(ahead, key, 15 * MINUTE));
    expect(there.current).toBe(2);
    expect(there.ttl).toBeGreaterThan(14 * MINUTE);
    expect(there.ttl).toBeLessThanOrEqual(15 * MINUTE);
    // And one behind does not keep a window going past its end, nor says a longer wait.
    const behind = await skewed(-20 * MINUTE, () => hit(here, key, 15 * MINUTE));
    expect(behind.current).toBe(3);
    expect(behind.ttl).toBeLessThanOrEqual(15 * MINUTE);
  });
});
