import type { InjectOptions } from 'fastify';
import { createTestApp, signUp, testDbKind, type TestApp } from '../../test/harness.js';

describe(`ad break activities (${testDbKind})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const inject = (opts: InjectOptions) => t.app.inject(opts);
  const postActivity = (cookie: string, payload: object, key?: string) =>
    inject({
      method: 'POST',
      url: '/api/activities',
      headers: { cookie, ...(key ? { 'idempotency-key': key } : {}) },
      payload,
    });
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

  it("refuses a free user's overlay activity with 403", async () => {
    const { cookie } = await signUp(t.app);
    const res = await postActivity(cookie, { app: 'Instagram', adDuration: 15, timeSaved: 15, pointsEarned: 1 });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ message: 'Premium subscription required for ad overlay' });
    expect(await stats(cookie)).toMatchObject({ totalPoints: 0, adsSkipped: 0 });
  });

  it('recomputes points and time saved from the duration, ignoring the client', async () => {
    const cookie = await subscribedUser();
    const res = await postActivity(
      cookie,
      { app: 'Instagram', adDuration: 15, timeSaved: 9999, pointsEarned: 9999 },
      'break-1',
    );
    expect(res.statusCode).toBe(201);
    // Activity: adCompletionPoints(15) = 1; skip reward ceil(15 / 10) = 2.
    expect(res.json()).toMatchObject({ recorded: true, skipReward: 2, message: 'Ad skipped! +2 pts' });
    expect(res.json().activity).toMatchObject({ app: 'Instagram', pointsEarned: 1, timeSaved: 15 });
    expect(await stats(cookie)).toMatchObject({ adsSkipped: 1, timeSaved: 15 });
  });

  it('scores a game by the rules: floor(score / 10); skipped or unfinished gives 1', async () => {
    const cookie = await subscribedUser();
    const play = (key: string, gameData: object, pointsEarned = 999) =>
      postActivity(cookie, { app: 'YouTube', adDuration: 30, timeSaved: 30, pointsEarned, gameData }, key);
    expect((await play('g1', { gameType: 'memory', score: 60, completed: true })).json().activity.pointsEarned).toBe(6);
    expect((await play('g2', { gameType: 'none', score: 0, completed: false })).json().activity.pointsEarned).toBe(1);
    const closed = (await play('g3', { gameType: 'trivia', score: 70, completed: false })).json().activity;
    expect(closed).toMatchObject({ pointsEarned: 1, gameType: 'trivia', gameScore: 0 });
  });

  it('refuses durations other than the simulated apps and impossible scores', async () => {
    const cookie = await subscribedUser();
    const bad = [
      { app: 'Instagram', adDuration: 30 },
      { app: 'YouTube', adDuration: 3000 },
      { app: 'Netflix', adDuration: 30 },
      { app: 'TikTok', adDuration: 20, gameData: { gameType: 'memory', score: 70, completed: true } },
      { app: 'TikTok', adDuration: 20, gameData: { gameType: 'memory', score: 15, completed: true } },
      { app: 'YouTube', adDuration: 30, gameData: { gameType: 'reaction', score: 201, completed: true } },
      { app: 'YouTube', adDuration: 30, gameData: { gameType: 'trivia', score: 90, completed: true } },
      { app: 'TikTok', adDuration: 20, gameData: { gameType: 'trivia', score: -10, completed: true } },
      { app: 'TikTok', adDuration: 20, gameData: { gameType: 'chess', score: 10, completed: true } },
    ];
    for (const body of bad) expect((await postActivity(cookie, body)).statusCode, JSON.stringify(body)).toBe(400);
    expect(await activities(cookie)).toEqual([]);
    expect((await stats(cookie)).totalPoints).toBe(0);
  });

  it('records a duplicated ad event once', async () => {
    const cookie = await subscribedUser();
    const body = { app: 'TikTok', adDuration: 20, gameData: { gameType: 'trivia', score: 80, completed: true } };
    const first = await postActivity(cookie, body, 'same-break');
    const again = await postActivity(cookie, body, 'same-break');
    const viaBody = await postActivity(cookie, { ...body, eventId: 'same-break' });
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ recorded: false, pointsAdded: 0 });
    expect(viaBody.json()).toMatchObject({ recorded: false });
    expect(await activities(cookie)).toHaveLength(1);
    // 8 points for the game + ceil(20 / 10) = 2 for the skip.
    expect(await stats(cookie)).toMatchObject({ adsSkipped: 1, totalPoints: 10, timeSaved: 20 });
  });

  it('answers a replay as a replay even when its body would now be refused, and races record once', async () => {
    const cookie = await subscribedUser();
    const body = { app: 'TikTok', adDuration: 20, gameData: { gameType: 'trivia', score: 80, completed: true } };
    expect((await postActivity(cookie, body, 'break-1')).statusCode).toBe(201);
    const forged = await postActivity(
      cookie,
      { ...body, gameData: { gameType: 'trivia', score: 100_000, completed: true } },
      'break-1',
    );
    expect(forged.statusCode).toBe(200);
    expect(forged.json()).toMatchObject({ recorded: false, pointsAdded: 0 });
    // The same event posted 5 times at once: one row, one award.
    const raced = await Promise.all(Array.from({ length: 5 }, () => postActivity(cookie, body, 'break-2')));
    expect(raced.map((r) => r.statusCode).sort()).toEqual([200, 200, 200, 200, 201]);
    expect(await activities(cookie)).toHaveLength(2);
    expect(await stats(cookie)).toMatchObject({ adsSkipped: 2, totalPoints: 20, timeSaved: 40 });
  });
});
