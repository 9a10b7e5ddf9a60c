import { sql } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import {
  createTestApp,
  playAdBreak,
  recordAdBreak,
  signUp,
  startAdBreak,
  testDbKind,
  type TestApp,
} from '../../test/harness';
import { AD_BREAK_CLOCK_LEEWAY_MS, AD_BREAK_RECORD_WINDOW_MS } from './ad-breaks.service';
import { AD_STILL_PLAYING_CODE } from '@contract/ad-breaks';

describe(`ad break activities (${testDbKind})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const inject = (opts: InjectOptions) => t.app.inject(opts);
  const play = (cookie: string, activity: { app: string; [k: string]: unknown }) =>
    playAdBreak(t.app, cookie, activity).then((x) => x.res);
  const stats = async (cookie: string) =>
    (await inject({ method: 'GET', url: '/api/stats', headers: { cookie } })).json() as {
      totalPoints: number;
      adsSkipped: number;
      timeSaved: number;
    };
  const activities = async (cookie: string) =>
    (await inject({ method: 'GET', url: '/api/activities', headers: { cookie } })).json() as Array<{
      pointsEarned: number;
      timeSaved: number;
      gameType: string | null;
      gameScore: number | null;
    }>;

  /** A user with the modal's free trial (premium, active). */
  async function subscribedUser() {
    const { cookie } = await signUp(t.app);
    const res = await inject({
      method: 'POST',
      url: '/api/subscription',
      headers: { cookie },
      payload: { plan: 'monthly', status: 'active', price: 499 },
    });
    expect(res.statusCode).toBeLessThan(300);
    return cookie;
  }

  it('starts an ad break timed by the server clock, for the simulated apps only', async () => {
    const { cookie } = await signUp(t.app);
    const res = await inject({
      method: 'POST',
      url: '/api/ad-breaks',
      headers: { cookie },
      payload: { app: 'TikTok' },
    });
    expect(res.statusCode).toBe(201);
    const started = t.clock.now().toISOString();
    expect(res.json()).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      app: 'TikTok',
      durationSeconds: 20,
      startedAt: started,
      endsAt: new Date(t.clock.now().getTime() + 20_000).toISOString(),
    });
    for (const payload of [{ app: 'Netflix' }, { app: '' }, {}, { app: 5 }]) {
      const bad = await inject({ method: 'POST', url: '/api/ad-breaks', headers: { cookie }, payload });
      expect(bad.statusCode, JSON.stringify(payload)).toBe(400);
      expect(bad.json().message).toEqual(expect.any(String));
    }
    const signedOut = await inject({ method: 'POST', url: '/api/ad-breaks', payload: { app: 'TikTok' } });
    expect(signedOut.statusCode).toBe(401);
  });

  it("refuses a free user's overlay activity with 403 but records their mini-game", async () => {
    const { cookie } = await signUp(t.app);
    const overlay = await play(cookie, { app: 'Instagram', timeSaved: 15, pointsEarned: 1 });
    expect(overlay.statusCode).toBe(403);
    expect(overlay.json()).toMatchObject({ message: 'Premium subscription required for ad overlay' });
    expect(await stats(cookie)).toMatchObject({ totalPoints: 0, adsSkipped: 0 });
    const game = await play(cookie, { app: 'Instagram', gameData: { gameType: 'memory', score: 60, completed: true } });
    expect(game.statusCode).toBe(201);
    expect(await stats(cookie)).toMatchObject({ totalPoints: 6 + 2, adsSkipped: 1 });
  });

  it('judges the overlay by the plan when the ad began, by the server clock: an ad that outlives the plan is paid, the next is not', async () => {
    // The device's and the server's clocks are one in production: the test moves both.
    vi.useFakeTimers({ now: t.clock.now(), toFake: ['Date'] });
    const advance = (ms: number) => {
      t.clock.advance(ms);
      vi.setSystemTime(t.clock.now());
    };
    try {
      const cookie = await subscribedUser();
      const end = Date.parse(
        (await inject({ method: 'GET', url: '/api/subscription', headers: { cookie } })).json().endDate,
      );
      advance(end - t.clock.now().getTime() - 10_000);
      const lastAd = await startAdBreak(t.app, cookie, 'YouTube');
      advance(30_000);
      // The plan ended 20 s ago, while this ad, begun under it, still played.
      const paid = await recordAdBreak(t.app, cookie, lastAd.id, { app: 'YouTube', adDuration: 30 });
      expect(paid.statusCode).toBe(201);
      expect(paid.json()).toMatchObject({ recorded: true, pointsAdded: 6 });

      const late = await startAdBreak(t.app, cookie, 'YouTube');
      advance(30_000);
      const refused = await recordAdBreak(t.app, cookie, late.id, { app: 'YouTube', adDuration: 30 });
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({ message: 'Premium subscription required for ad overlay' });
    } finally {
      vi.useRealTimers();
    }
  });

  it("refuses the overlay by the server clock, which a test moves past the plan's end", async () => {
    const cookie = await subscribedUser();
    const end = Date.parse(
      (await inject({ method: 'GET', url: '/api/subscription', headers: { cookie } })).json().endDate,
    );
    t.clock.advance(end - t.clock.now().getTime());
    // The plan ends at this very millisecond: the ad begins without it.
    const res = await play(cookie, { app: 'TikTok', adDuration: 20 });
    expect(res.statusCode).toBe(403);
  });

  it('recomputes points and time saved from the duration, ignoring the client', async () => {
    const cookie = await subscribedUser();
    const res = await play(cookie, { app: 'Instagram', timeSaved: 9999, pointsEarned: 9999 });
    expect(res.statusCode).toBe(201);
    // Activity: adCompletionPoints(15) = 1; skip reward ceil(15 / 10) = 2.
    expect(res.json()).toMatchObject({ recorded: true, skipReward: 2, message: 'Ad skipped! +2 pts' });
    expect(res.json().activity).toMatchObject({ app: 'Instagram', pointsEarned: 1, timeSaved: 15 });
    expect(await stats(cookie)).toMatchObject({ adsSkipped: 1, timeSaved: 15 });
  });

  it('scores a game by the rules: floor(score / 10); skipped or unfinished gives 1', async () => {
    const cookie = await subscribedUser();
    const game = (gameData: object) => play(cookie, { app: 'YouTube', timeSaved: 30, pointsEarned: 999, gameData });
    expect((await game({ gameType: 'memory', score: 60, completed: true })).json().activity.pointsEarned).toBe(6);
    expect((await game({ gameType: 'none', score: 0, completed: false })).json().activity.pointsEarned).toBe(1);
    const closed = (await game({ gameType: 'trivia', score: 70, completed: false })).json().activity;
    expect(closed).toMatchObject({ pointsEarned: 1, gameType: 'trivia', gameScore: 0 });
  });

  it('refuses durations other than the ad break, other apps and scores the ad leaves no time for', async () => {
    const cookie = await subscribedUser();
    const bad = [
      { app: 'Instagram', adDuration: 30 },
      { app: 'YouTube', adDuration: 3000 },
      { app: 'Netflix', adDuration: 30 },
      { app: 'TikTok', adDuration: 20, gameData: { gameType: 'memory', score: 70, completed: true } },
      { app: 'TikTok', adDuration: 20, gameData: { gameType: 'memory', score: 15, completed: true } },
      { app: 'YouTube', adDuration: 30, gameData: { gameType: 'reaction', score: 201, completed: true } },
      { app: 'YouTube', adDuration: 30, gameData: { gameType: 'trivia', score: 90, completed: true } },
      // The trivia time bonus needs more than half of the time left after 14 s of pauses.
      { app: 'TikTok', adDuration: 20, gameData: { gameType: 'trivia', score: 85, completed: true } },
      { app: 'TikTok', adDuration: 20, gameData: { gameType: 'trivia', score: -10, completed: true } },
      { app: 'TikTok', adDuration: 20, gameData: { gameType: 'chess', score: 10, completed: true } },
    ];
    for (const body of bad) {
      const adBreak = await startAdBreak(t.app, cookie, body.app === 'Netflix' ? 'YouTube' : body.app);
      t.clock.advance(adBreak.durationSeconds * 1000);
      expect((await recordAdBreak(t.app, cookie, adBreak.id, body)).statusCode, JSON.stringify(body)).toBe(400);
    }
    // A YouTube ad break recorded as an Instagram ad.
    const yt = await startAdBreak(t.app, cookie, 'YouTube');
    t.clock.advance(30_000);
    const other = await recordAdBreak(t.app, cookie, yt.id, { app: 'Instagram', adDuration: 15 });
    expect(other.statusCode).toBe(400);
    expect(other.json().message).toBe('This ad break is a YouTube ad, not Instagram.');
    expect(await activities(cookie)).toEqual([]);
    expect((await stats(cookie)).totalPoints).toBe(0);
  });

  it('needs an ad-break id: missing is 400, unknown is 404', async () => {
    const cookie = await subscribedUser();
    const body = { app: 'YouTube', adDuration: 30, gameData: { gameType: 'memory', score: 60, completed: true } };
    const missing = await inject({ method: 'POST', url: '/api/activities', headers: { cookie }, payload: body });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().message).toMatch(/ad-break id is required/);
    for (const id of ['not-a-break', '00000000-0000-4000-8000-000000000000']) {
      const unknown = await recordAdBreak(t.app, cookie, id, body);
      expect(unknown.statusCode, id).toBe(404);
      expect(unknown.json().message).toMatch(/^Unknown ad break/);
    }
    expect(await activities(cookie)).toEqual([]);
  });

  it('records from the end of the ad (less the clock leeway) until the record window closes', async () => {
    const cookie = await subscribedUser();
    const body = { app: 'Instagram', adDuration: 15, gameData: { gameType: 'memory', score: 60, completed: true } };
    const early = await startAdBreak(t.app, cookie, 'Instagram');
    t.clock.advance(15_000 - AD_BREAK_CLOCK_LEEWAY_MS - 1);
    const tooEarly = await recordAdBreak(t.app, cookie, early.id, body);
    expect(tooEarly.statusCode).toBe(409);
    expect(tooEarly.json().message).toBe('The ad is still playing: 3 s left.');
    // Told apart from the final 409s: the overlay may send it again.
    expect(tooEarly.json().code).toBe(AD_STILL_PLAYING_CODE);
    t.clock.advance(1);
    expect((await recordAdBreak(t.app, cookie, early.id, body)).statusCode).toBe(201);

    const late = await startAdBreak(t.app, cookie, 'Instagram');
    t.clock.advance(15_000 + AD_BREAK_RECORD_WINDOW_MS + 1);
    const expired = await recordAdBreak(t.app, cookie, late.id, body);
    expect(expired.statusCode).toBe(409);
    expect(expired.json().message).toMatch(/can no longer be recorded/);
    const inTime = await startAdBreak(t.app, cookie, 'Instagram');
    t.clock.advance(15_000 + AD_BREAK_RECORD_WINDOW_MS);
    expect((await recordAdBreak(t.app, cookie, inTime.id, body)).statusCode).toBe(201);
    expect(await activities(cookie)).toHaveLength(2);
  });

  it('records a duplicated ad event once, also through the body eventId', async () => {
    const cookie = await subscribedUser();
    const body = { app: 'TikTok', adDuration: 20, gameData: { gameType: 'trivia', score: 80, completed: true } };
    const { adBreak, res: first } = await playAdBreak(t.app, cookie, body);
    const again = await recordAdBreak(t.app, cookie, adBreak.id, body);
    const viaBody = await inject({
      method: 'POST',
      url: '/api/activities',
      headers: { cookie },
      payload: { ...body, eventId: adBreak.id },
    });
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ recorded: false, pointsAdded: 0 });
    expect(viaBody.json()).toMatchObject({ recorded: false });
    expect(await activities(cookie)).toHaveLength(1);
    // 8 points for the game + ceil(20 / 10) = 2 for the skip.
    expect(await stats(cookie)).toMatchObject({ adsSkipped: 1, totalPoints: 10, timeSaved: 20 });
  });

  it('a body eventId names the ad break when there is no Idempotency-Key', async () => {
    const cookie = await subscribedUser();
    const adBreak = await startAdBreak(t.app, cookie, 'TikTok');
    t.clock.advance(20_000);
    const res = await inject({
      method: 'POST',
      url: '/api/activities',
      headers: { cookie },
      payload: { app: 'TikTok', adDuration: 20, eventId: adBreak.id },
    });
    expect(res.statusCode).toBe(201);
  });

  it('answers a replay as a replay even when its body would now be refused, and races record once', async () => {
    const cookie = await subscribedUser();
    const body = { app: 'TikTok', adDuration: 20, gameData: { gameType: 'trivia', score: 80, completed: true } };
    const { adBreak, res } = await playAdBreak(t.app, cookie, body);
    expect(res.statusCode).toBe(201);
    t.clock.advance(AD_BREAK_RECORD_WINDOW_MS * 2);
    const forged = await recordAdBreak(t.app, cookie, adBreak.id, {
      ...body,
      gameData: { gameType: 'trivia', score: 100_000, completed: true },
    });
    expect(forged.statusCode).toBe(200);
    expect(forged.json()).toMatchObject({ recorded: false, pointsAdded: 0 });
    // The same ad break posted 5 times at once: one row, one award.
    const second = await startAdBreak(t.app, cookie, 'TikTok');
    t.clock.advance(20_000);
    const raced = await Promise.all(Array.from({ length: 5 }, () => recordAdBreak(t.app, cookie, second.id, body)));
    expect(raced.map((r) => r.statusCode).sort()).toEqual([200, 200, 200, 200, 201]);
    expect(await activities(cookie)).toHaveLength(2);
    expect(await stats(cookie)).toMatchObject({ adsSkipped: 2, totalPoints: 20, timeSaved: 40 });
  });

  it("refuses another app's activity for a break a racing request has claimed but not yet written", async () => {
    const cookie = await subscribedUser();
    const ig = await startAdBreak(t.app, cookie, 'Instagram');
    t.clock.advance(15_000);
    // The state between the first request's claim and its insert (two round trips apart).
    await t.database.db.execute(sql`update ad_breaks set recorded_at = now() where id = ${ig.id}`);
    const longer = await recordAdBreak(t.app, cookie, ig.id, { app: 'YouTube', adDuration: 30 });
    expect(longer.statusCode).toBe(400);
    expect(longer.json().message).toBe('This ad break is an Instagram ad, not YouTube.');
    expect(await activities(cookie)).toEqual([]);
    // Its own app still records it (the first request's insert, or a replay of it).
    const own = await recordAdBreak(t.app, cookie, ig.id, { app: 'Instagram', adDuration: 15 });
    expect(own.statusCode).toBe(201);
    expect(await activities(cookie)).toMatchObject([{ timeSaved: 15 }]);
  });

  it('a newer ad break supersedes an unrecorded one, which can then never be recorded', async () => {
    const cookie = await subscribedUser();
    const body = { app: 'YouTube', adDuration: 30 };
    const first = await startAdBreak(t.app, cookie, 'YouTube');
    t.clock.advance(10_000);
    const second = await startAdBreak(t.app, cookie, 'YouTube');
    t.clock.advance(30_000);
    const old = await recordAdBreak(t.app, cookie, first.id, body);
    expect(old.statusCode).toBe(409);
    expect(old.json().message).toBe('This ad break was replaced by a newer one and cannot be recorded.');
    expect((await recordAdBreak(t.app, cookie, second.id, body)).statusCode).toBe(201);
    // A recorded break is never superseded: starting another leaves its replay intact.
    await startAdBreak(t.app, cookie, 'TikTok');
    expect((await recordAdBreak(t.app, cookie, second.id, body)).json()).toMatchObject({ recorded: false });
    expect(await activities(cookie)).toHaveLength(1);
  });
});
