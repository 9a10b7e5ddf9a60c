import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMITS } from '../http/rate-limits';
import { createTestApp, signUp, testDbKind, type TestApp } from '../test/harness';
import { expectLimited, spendAllOk } from './budget';

/**
 * Round eight of the attacker's audit, on ad breaks, points, streaks, achievements and app status.
 * Each test failed before its fix.
 */
describe(`trust: rewards and activities, round eight (${testDbKind})`, () => {
  let t: TestApp;
  let a: { cookie: string };
  let b: { cookie: string };
  beforeAll(async () => {
    t = await createTestApp();
    a = await signUp(t.app);
    b = await signUp(t.app);
  });
  afterAll(() => t?.close());

  it('GET /api/activities (200 rows read and written per call) is refused past its per-user budget, GET and HEAD alike', async () => {
    // A list of 200 activities costs ~4 ms a call (a one-row read ~1 ms); without a limit one
    // account's loop kept the database sending it without pause.
    const rule = DEFAULT_RATE_LIMITS['GET /api/activities']?.[0];
    expect(rule).toBeDefined();
    expect(rule!.key).toBe('user');
    // The app asks it per dashboard load (and its painted page), after each ad and per settings visit.
    expect(rule!.max).toBeGreaterThanOrEqual(600);
    expect(rule!.max / (rule!.windowMs / 1000)).toBeLessThanOrEqual(4);
    const ask = (method: 'GET' | 'HEAD', cookie: string) =>
      t.app.inject({ method, url: '/api/activities', headers: { cookie } });
    await spendAllOk(0, rule!.max, (n) => ask(n % 2 ? 'HEAD' : 'GET', a.cookie));
    expectLimited(await ask('GET', a.cookie));
    expectLimited(await ask('HEAD', a.cookie));
    expect((await ask('GET', b.cookie)).statusCode).toBe(200);
  });
});
