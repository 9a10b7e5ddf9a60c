import type { UploadResponse } from '@contract/photos';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMITS, ORIGINALS_PER_WINDOW, SMALL_THUMBNAILS_PER_WINDOW } from '../http/rate-limits';
import { createTestApp, signUp, testDbKind, type TestApp } from '../test/harness';
import { postPhotos } from '../test/multipart';
import { zeroPng } from '../test/png';
import { expectLimited, spendAllOk } from './budget';

/**
 * Round five of the attacker's audit: reads that total everything a user has on every call, and
 * that the web client asks again by itself (polls, refreshes after writes), had no limit at all, so
 * one account's loop could keep the database counting its library or ledger without pause. Each
 * test failed before its fix.
 */
const ruleOf = (route: string) => {
  const rule = DEFAULT_RATE_LIMITS[route]?.[0];
  if (!rule) throw new Error(`${route} has no limit`);
  return rule;
};

const TOTALS = [
  { route: 'GET /api/photos/summary', url: '/api/photos/summary', counts: 'every photo' },
  { route: 'GET /api/photos/analysis-status', url: '/api/photos/analysis-status', counts: 'every photo and job' },
  { route: 'GET /api/albums', url: '/api/albums', counts: 'every album membership' },
  { route: 'GET /api/stats', url: '/api/stats?utcOffsetMinutes=0', counts: 'every ledger entry' },
  { route: 'GET /api/rewards', url: '/api/rewards', counts: 'every ledger entry' },
] as const;

describe(`trust: reads that count everything a user has (${testDbKind})`, () => {
  let t: TestApp;
  /** Signed up once (password hashing is slow by design); each route keeps its own count per user. */
  let a: { cookie: string };
  let b: { cookie: string };
  beforeAll(async () => {
    t = await createTestApp();
    a = await signUp(t.app);
    b = await signUp(t.app);
  });
  afterAll(() => t?.close());

  it.each(TOTALS)(
    '$route (it counts $counts) is refused past its per-user budget, GET and HEAD alike; another user is not',
    async ({ route, url }) => {
      const rule = ruleOf(route);
      expect(rule.key).toBe('user');
      // Far above what the app asks (an organizer polls every 2 s: 150 in 5 minutes per tab).
      expect(rule.max).toBeGreaterThanOrEqual(600);
      expect(rule.max / (rule.windowMs / 1000)).toBeLessThanOrEqual(4);
      const ask = (method: 'GET' | 'HEAD', cookie: string) => t.app.inject({ method, url, headers: { cookie } });
      // One budget for both methods, however they alternate (Fastify's HEAD runs the GET's handler).
      // Sent a few at a time, as a loop with several connections would (and the counters are atomic).
      await spendAllOk(0, rule.max, (n) => ask(n % 2 ? 'HEAD' : 'GET', a.cookie));
      const refusedGet = await ask('GET', a.cookie);
      expectLimited(refusedGet);
      expect(refusedGet.json().message).toMatch(/^Too many attempts\. Please wait \d+ minute\(s\) and try again\.$/);
      const refusedHead = await ask('HEAD', a.cookie);
      expectLimited(refusedHead);
      // Another account's budget is its own.
      expect((await ask('GET', b.cookie)).statusCode).toBe(200);
      expect((await ask('HEAD', b.cookie)).statusCode).toBe(200);
    },
  );

  it('POST /api/rewards/record is refused past its per-user budget and its repeats mint nothing', async () => {
    const rule = ruleOf('POST /api/rewards/record');
    expect(rule.key).toBe('user');
    const record = (cookie: string) =>
      t.app.inject({ method: 'POST', url: '/api/rewards/record', headers: { cookie }, payload: { type: 'login' } });
    const points = async (cookie: string) =>
      (await t.app.inject({ method: 'GET', url: '/api/stats?utcOffsetMinutes=0', headers: { cookie } })).json()
        .totalPoints as number;
    const c = await signUp(t.app);
    const first = await record(c.cookie);
    expect(first.statusCode).toBe(200);
    const afterFirst = await points(c.cookie);
    await spendAllOk(1, rule.max, () => record(c.cookie));
    const refused = await record(c.cookie);
    expectLimited(refused);
    expect(refused.json().message).toMatch(/^Too many attempts\. Please wait \d+ minute\(s\) and try again\.$/);
    // The day's login was rewarded once, whatever the number of calls.
    expect(await points(c.cookie)).toBe(afterFirst);
    expect((await record(b.cookie)).statusCode).toBe(200);
  });

  it.each([
    {
      route: 'GET /api/photos/:id/:variant',
      what: 'an original',
      max: ORIGINALS_PER_WINDOW,
      path: (id: string) => `/api/photos/${id}/original`,
    },
    {
      route: 'GET /api/photos/:id/download',
      what: 'an original',
      max: ORIGINALS_PER_WINDOW,
      path: (id: string) => `/api/photos/${id}/download?version=original`,
    },
    // Made on demand (a decode and an encode on a miss), so not unlimited like the stored thumbnails.
    {
      route: 'GET /api/photos/:id/:variant',
      what: 'a small thumbnail',
      max: SMALL_THUMBNAILS_PER_WINDOW,
      path: (id: string) => `/api/photos/${id}/small`,
    },
  ])(
    '$route of $what is refused past its per-user budget; thumbnails and other users are not',
    async ({ route, path, max }) => {
      // A person zooming, saving or going back to the dashboard (the browser keeps what it fetched) stays far below.
      expect(max).toBeGreaterThanOrEqual(300);
      expect(DEFAULT_RATE_LIMITS[route]?.some((r) => r.key === 'user' && r.max === max)).toBe(true);
      const owner = await signUp(t.app);
      const other = await signUp(t.app);
      const idOf = async (cookie: string) => {
        const up = await postPhotos(t.app, cookie, [
          { name: 'a.png', bytes: zeroPng({ width: 8, height: 8, bitDepth: 8, rawBytes: 72 }), type: 'image/png' },
        ]);
        expect(up.statusCode).toBe(201);
        const [first] = (up.json() as UploadResponse).results;
        if (!first?.ok) throw new Error(`upload refused: ${up.body}`);
        return first.photo.id;
      };
      const mine = await idOf(owner.cookie);
      const theirs = await idOf(other.cookie);
      const ask = (method: 'GET' | 'HEAD', cookie: string, url: string) =>
        t.app.inject({ method, url, headers: { cookie } });
      await spendAllOk(0, max, (n) => ask(n % 2 ? 'HEAD' : 'GET', owner.cookie, path(mine)));
      expectLimited(await ask('GET', owner.cookie, path(mine)));
      expectLimited(await ask('HEAD', owner.cookie, path(mine)));
      // The gallery's own images are not held by it, nor is another account.
      expect((await ask('GET', owner.cookie, `/api/photos/${mine}/thumbnail`)).statusCode).toBe(200);
      expect((await ask('GET', other.cookie, path(theirs))).statusCode).toBe(200);
    },
  );
});
