import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { SESSION_DAYS } from '../../http/session';
import { createTestApp, signUp, testDbKind, type TestApp } from '../../test/harness';
import { createAuthRepository } from './auth.repository';
import { purgeExpiredSessions, SESSION_PURGE_EVERY_MS, startSessionPurge } from './session-purge';

const MINUTE = 60_000;

describe(`expired sessions are purged (${testDbKind})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const sessionsOf = async (userId: string) => {
    const res = (await t.database.db.execute(
      sql`select expires_at from sessions where user_id = ${userId} order by expires_at`,
    )) as unknown as { rows: Array<{ expires_at: Date | string }> };
    return res.rows.map((r) => new Date(r.expires_at).getTime());
  };

  it('deletes only sessions whose expiry has passed, in bounded batches, on the clock it is handed', async () => {
    const repo = createAuthRepository(t.database.db);
    const a = await signUp(t.app);
    const b = await signUp(t.app);
    const now = t.clock.now();
    const at = (ms: number) => new Date(now.getTime() + ms);
    const add = (userId: string, expiresAt: Date) =>
      repo.insertSession(randomBytes(32).toString('hex'), userId, expiresAt);
    // Expired: minutes ago, and at this very instant (the lookup refuses it already).
    for (const ms of [-5, -4, -3, -2, -1].map((m) => m * MINUTE)) await add(a.user.id, at(ms));
    await add(a.user.id, now);
    await add(b.user.id, at(-MINUTE));
    // Live for one more millisecond.
    await add(a.user.id, at(1));
    const aLive = (await sessionsOf(a.user.id)).filter((ms) => ms > now.getTime());
    expect(aLive).toHaveLength(2);

    // One batch of 2 at most: a run never grows with the backlog; the next one goes on.
    expect(await purgeExpiredSessions(repo, now, { batch: 2, maxBatches: 1 })).toBe(2);
    expect(await purgeExpiredSessions(repo, now, { batch: 2 })).toBe(5);
    expect(await purgeExpiredSessions(repo, now, { batch: 2 })).toBe(0);
    expect(await sessionsOf(a.user.id)).toEqual(aLive);
    // The sign-up's session still signs in.
    expect((await t.app.inject({ url: '/api/auth/user', headers: { cookie: a.cookie } })).statusCode).toBe(200);
    expect(await sessionsOf(b.user.id)).toHaveLength(1);

    // Once the sign-ups' 30 days have passed, their sessions go too.
    t.clock.advance(SESSION_DAYS * 86_400_000 + MINUTE);
    expect(await purgeExpiredSessions(repo, t.clock.now())).toBe(3);
    expect(await sessionsOf(a.user.id)).toEqual([]);
    expect(await sessionsOf(b.user.id)).toEqual([]);
  });
});

describe('the session purge timer', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs at start and then every hour, one run at a time, with an unref timer, until stopped', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const intervals = vi.spyOn(globalThis, 'setInterval');
    const clock = { at: Date.parse('2026-11-24T12:00:00Z') };
    const seen: number[] = [];
    let release: (() => void) | null = null;
    const purge = vi.fn(async (now: Date) => {
      seen.push(now.getTime());
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return 1;
    });
    const log = { info: vi.fn(), error: vi.fn() };
    const job = startSessionPurge({ purge, now: () => new Date(clock.at), log });
    const timer = intervals.mock.results[0]?.value as { hasRef(): boolean };
    expect(timer.hasRef()).toBe(false);
    expect(purge).toHaveBeenCalledTimes(1);

    // The first run has not finished: the hour's tick does not start a second one beside it.
    vi.advanceTimersByTime(SESSION_PURGE_EVERY_MS);
    expect(purge).toHaveBeenCalledTimes(1);
    release!();
    await job.run();
    expect(log.info).toHaveBeenCalledWith({ deleted: 1 }, 'expired sessions purged');

    clock.at += SESSION_PURGE_EVERY_MS;
    vi.advanceTimersByTime(SESSION_PURGE_EVERY_MS);
    expect(purge).toHaveBeenCalledTimes(2);
    expect(seen).toEqual([Date.parse('2026-11-24T12:00:00Z'), Date.parse('2026-11-24T13:00:00Z')]);
    const stopped = job.stop();
    release!();
    await stopped;
    vi.advanceTimersByTime(10 * SESSION_PURGE_EVERY_MS);
    expect(purge).toHaveBeenCalledTimes(2);
  });
});
