import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACHIEVEMENTS, REWARD_POINTS, skipReward, uploadReward } from '@domain/rewards';
import { adDurationFor, validateGameResult } from '@domain/games/scoring';
import { adCompletionPoints } from '@domain/rewards';
import { adBreakIds, createTestApp, signUp, type TestApp } from '../test/harness';
import { jpeg, multipart, recordFigure } from './support';

/**
 * forged and replayed points, rewards, activities and subscription calls add nothing
 * beyond the rules. The expected total is computed from the rules in src/domain (never from what
 * the server answered) and checked against the sum of the ledger and both summary endpoints.
 */
let t: TestApp;
let cookie: string;
let userId: string;
let adBreakId: ReturnType<typeof adBreakIds>;
beforeAll(async () => {
  t = await createTestApp();
  ({
    cookie,
    user: { id: userId },
  } = await signUp(t.app));
  adBreakId = adBreakIds(t.app);
});
afterAll(async () => {
  await t?.close();
});

const post = (url: string, payload?: object, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url, headers: { cookie, ...headers }, payload });
/** An activity for the ad break a label names (played out on first use); `viaBody`: its id as body eventId. */
const postActivity = async (body: { app: string; [k: string]: unknown }, label?: string, viaBody = false) => {
  const id = await adBreakId(cookie, body.app, label);
  return viaBody
    ? post('/api/activities', { ...body, eventId: id })
    : post('/api/activities', body, { 'idempotency-key': id });
};
const ledgerSum = async () => {
  const res = (await t.database.db.execute(
    sql`select coalesce(sum(points), 0)::int s, count(*)::int n from points_ledger where user_id = ${userId}`,
  )) as unknown as { rows: Array<{ s: number; n: number }> };
  return res.rows[0]!;
};

describe('points economy under forged and replayed calls', () => {
  it('the ledger holds exactly what the rules allow', async () => {
    let expected = 0;

    // Daily login: forged points, replays and fresh event ids all collapse into one award.
    for (let i = 0; i < 4; i++) {
      const r = await post('/api/rewards/record', {
        type: 'login',
        points: 100_000,
        eventId: `login-${i}`,
        utcOffsetMinutes: 0,
      });
      expect(r.statusCode).toBe(200);
    }
    expected += REWARD_POINTS.login;

    // Types the server cannot verify pay nothing, whatever points they claim.
    for (const type of ['points', 'upload', 'streak', 'achievement'] as const) {
      for (let i = 0; i < 3; i++) {
        const r = await post('/api/rewards/record', { type, points: 9_999_999, message: 'gift', utcOffsetMinutes: 0 });
        expect(r.statusCode).toBe(200);
        expect(r.json().points ?? 0).toBe(0);
      }
    }
    expect((await post('/api/rewards/record', { type: 'jackpot', points: 5 })).statusCode).toBe(400);

    // Activation: once per day through either endpoint.
    for (let i = 0; i < 3; i++) {
      expect(
        (await post('/api/rewards/record', { type: 'activation', points: 500, utcOffsetMinutes: 0 })).statusCode,
      ).toBe(200);
      expect((await post('/api/app-status/activate', { utcOffsetMinutes: 0 })).statusCode).toBe(200);
    }
    expected += REWARD_POINTS.activation;

    // Activities: forged pointsEarned/timeSaved ignored; each event id counts once, also under a
    // burst of concurrent replays.
    const games = [
      { app: 'YouTube', gameData: { gameType: 'memory', score: 60, completed: true } },
      { app: 'Instagram', gameData: { gameType: 'none', score: 0, completed: false } },
      { app: 'TikTok', gameData: { gameType: 'memory', score: 30, completed: true } },
      { app: 'YouTube', gameData: { gameType: 'trivia', score: 0, completed: false } },
      { app: 'Instagram', gameData: { gameType: 'memory', score: 10, completed: true } },
    ];
    let adsSkipped = 0;
    for (const [i, g] of games.entries()) {
      const dur = adDurationFor(g.app);
      const body = { ...g, adDuration: dur, pointsEarned: 100_000, timeSaved: 100_000 };
      const key = `game-${i}`;
      expect((await postActivity(body, key)).statusCode).toBe(201);
      const replays = await Promise.all(Array.from({ length: 8 }, () => postActivity(body, key)));
      for (const r of replays) expect([200, 201]).toContain(r.statusCode);
      expect(replays.filter((r) => r.statusCode === 201)).toHaveLength(0);
      // The same event through the body's eventId is the same event.
      expect((await postActivity(body, key, true)).json().recorded).toBe(false);
      const check = validateGameResult(g.gameData, dur);
      if (!check.ok) throw new Error(check.reason);
      expected += check.points + skipReward(dur);
      adsSkipped += 1;
    }
    // Concurrent first attempts with one fresh key: exactly one is recorded.
    const burst = await Promise.all(
      Array.from({ length: 10 }, () =>
        postActivity({ app: 'TikTok', adDuration: 20, gameData: games[0]!.gameData }, 'burst'),
      ),
    );
    expect(burst.filter((r) => r.statusCode === 201)).toHaveLength(1);
    expected += validateGameResult(games[0]!.gameData, 20).ok ? Math.floor(60 / 10) + skipReward(20) : 0;
    adsSkipped += 1;

    // Impossible games, wrong durations, unknown apps, and the overlay without a plan: refused, nothing added.
    const refused = [
      { app: 'YouTube', adDuration: 30, gameData: { gameType: 'memory', score: 61, completed: true } },
      { app: 'YouTube', adDuration: 30, gameData: { gameType: 'memory', score: 1e9, completed: true } },
      { app: 'YouTube', adDuration: 30, gameData: { gameType: 'trivia', score: -10, completed: true } },
      { app: 'YouTube', adDuration: 30, gameData: { gameType: 'reaction', score: 1.5, completed: true } },
      { app: 'YouTube', adDuration: 3000, gameData: { gameType: 'memory', score: 60, completed: true } },
      { app: 'Casino', adDuration: 30, gameData: { gameType: 'memory', score: 60, completed: true } },
      { app: 'YouTube', adDuration: 30 },
    ];
    for (const body of refused) {
      const r = await postActivity(body);
      expect(r.statusCode, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
      expect(r.statusCode).toBeLessThan(500);
    }

    // Subscription: the trial once; a second trial, a forged price, an upgrade without paying add nothing.
    expect((await post('/api/subscription', { plan: 'monthly', price: 0 })).statusCode).toBe(400);
    const trial = await post('/api/subscription', { plan: 'monthly', endDate: '2999-01-01T00:00:00Z' });
    expect(trial.statusCode).toBe(201);
    const endDate = trial.json().endDate as string;
    expect(new Date(endDate).getTime()).toBeLessThan(Date.now() + 32 * 86_400_000);
    for (const body of [{ plan: 'yearly' }, { plan: 'monthly', status: 'active' }]) {
      expect((await post('/api/subscription', body)).statusCode).toBe(409);
    }
    const up = await post('/api/subscription/upgrade', { tier: 'family', billingCycle: 'yearly', price: 1 });
    expect(up.statusCode).toBe(400);
    const sub = (await t.app.inject({ url: '/api/subscription', headers: { cookie } })).json();
    expect(sub).toMatchObject({ tier: 'premium', endDate });

    // With the plan, an overlay ad (no game) pays its completion points once.
    const overlay = { app: 'YouTube', adDuration: 30, pointsEarned: 999 };
    expect((await postActivity(overlay, 'overlay')).statusCode).toBe(201);
    expect((await postActivity(overlay, 'overlay')).statusCode).toBe(200);
    expected += adCompletionPoints(30) + skipReward(30);
    adsSkipped += 1;

    // Uploads: the reward is per stored batch, computed from the photos actually stored.
    const m = multipart([
      { name: 'a.jpg', bytes: await jpeg(1) },
      { name: 'b.jpg', bytes: await jpeg(2) },
      { name: 'bad.jpg', bytes: Buffer.from('not an image') },
    ]);
    const upl = await post('/api/photos', m.payload as unknown as object, m.headers);
    expect(upl.statusCode).toBe(201);
    expect(upl.json().uploaded).toBe(2);
    expected += uploadReward(2);

    // Achievements the counts reach, each once (demo photos do not count as uploads).
    const due = ACHIEVEMENTS.filter(
      (a) =>
        (a.metric === 'photosUploaded' && 2 >= a.threshold) ||
        (a.metric === 'adsSkipped' && adsSkipped >= a.threshold) ||
        (a.metric === 'currentStreak' && 1 >= a.threshold),
    );
    for (let i = 0; i < 3; i++) await post('/api/rewards/record', { type: 'achievement', utcOffsetMinutes: 0 });
    expected += due.reduce((s, a) => s + a.points, 0);
    expect(expected).toBeLessThan(500); // so Point Master is not due either

    const { s } = await ledgerSum();
    await recordFigure('3 economy', 'ledger sum / rule total (after forged + replayed calls)', `${s} / ${expected}`);
    expect(s).toBe(expected);
    const stats = (await t.app.inject({ url: '/api/stats', headers: { cookie } })).json();
    expect(stats.totalPoints).toBe(expected);
    const rewards = (await t.app.inject({ url: '/api/rewards', headers: { cookie } })).json();
    expect(rewards.totalPoints).toBe(expected);
    expect(rewards.adsSkipped).toBe(adsSkipped);
    expect(rewards.achievements.map((a: string | { id: string }) => (typeof a === 'string' ? a : a.id)).sort()).toEqual(
      due.map((a) => a.id).sort(),
    );
  }, 90_000);

  it("another user's session cannot add to this user's ledger", async () => {
    const before = await ledgerSum();
    const other = await signUp(t.app);
    await t.app.inject({
      method: 'POST',
      url: '/api/rewards/record',
      headers: { cookie: other.cookie },
      payload: { type: 'login', userId, utcOffsetMinutes: 0 },
    });
    expect(await ledgerSum()).toEqual(before);
  });
});
