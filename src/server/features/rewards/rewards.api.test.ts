import type { InjectOptions } from 'fastify';
import { addDays, DAY_MS } from '@domain/calendar';
import { and, eq } from 'drizzle-orm';
import { achievements, pointsLedger } from '../../db/schema';
import { pointsPerDay } from '@domain/insights';
import { createLedger } from './ledger';
import { adBreakIds, createTestApp, signUp, testDbKind, type TestApp } from '../../test/harness';

describe(`rewards, stats and activities API (${testDbKind})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());
  let adBreakId: ReturnType<typeof adBreakIds>;
  beforeAll(() => {
    adBreakId = adBreakIds(t.app);
  });

  const inject = (opts: InjectOptions) => t.app.inject(opts);
  const get = async (cookie: string, url: string) => {
    const res = await inject({ method: 'GET', url, headers: { cookie } });
    expect(res.statusCode).toBe(200);
    return res.json();
  };
  const record = (cookie: string, payload: object) =>
    inject({ method: 'POST', url: '/api/rewards/record', headers: { cookie }, payload });
  /** Each event label (Idempotency-Key or body eventId) stands for one ad break of that user, played out first. */
  const postActivity = async (
    cookie: string,
    payload: { app: string; eventId?: string; [field: string]: unknown },
    headers: Record<string, string> = {},
  ) => {
    const key = headers['idempotency-key'];
    const id = await adBreakId(cookie, payload.app, key ?? payload.eventId);
    return inject({
      method: 'POST',
      url: '/api/activities',
      headers: { cookie, ...headers, ...(payload.eventId === undefined ? { 'idempotency-key': id } : {}) },
      payload: payload.eventId === undefined ? payload : { ...payload, eventId: id },
    });
  };
  /** Ad-overlay activities need an active subscription: the modal's free trial. */
  const subscribe = async (cookie: string) => {
    const res = await inject({
      method: 'POST',
      url: '/api/subscription',
      headers: { cookie },
      payload: { plan: 'monthly', status: 'active', price: 499 },
    });
    expect(res.statusCode).toBeLessThan(300);
  };
  /** Inserts an earlier day's login reward, as if the user had logged in then, at this time of day. */
  const seedLogin = (userId: string, day: string) => {
    const createdAt = new Date(Date.parse(`${day}T00:00:00Z`) + (Date.now() % DAY_MS));
    return t.database.db
      .insert(pointsLedger)
      .values({ userId, source: 'login', sourceEventId: `login:${day}`, points: 10, createdAt });
  };

  it('requires a session', async () => {
    for (const url of ['/api/rewards', '/api/stats', '/api/activities', '/api/app-status']) {
      expect((await inject({ method: 'GET', url })).statusCode).toBe(401);
    }
  });

  it('starts a new user at zero', async () => {
    const { cookie } = await signUp(t.app);
    expect(await get(cookie, '/api/stats')).toMatchObject({ totalPoints: 0, adsSkipped: 0, timeSaved: 0 });
    const stats = await get(cookie, '/api/stats');
    expect(stats.pointsByDay).toHaveLength(7);
    expect(await get(cookie, '/api/rewards')).toEqual({
      lastLoginDate: null,
      currentStreak: 0,
      photosUploaded: 0,
      adsSkipped: 0,
      totalPoints: 0,
      achievements: [],
    });
    expect(await get(cookie, '/api/activities')).toEqual([]);
  });

  it('replaces forged points with the rule and refuses unknown types', async () => {
    const { cookie } = await signUp(t.app);
    const res = await record(cookie, { type: 'login', points: 100000, message: 'hax' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ type: 'login', points: 10, awarded: true, currentStreak: 1 });
    expect((await get(cookie, '/api/stats')).totalPoints).toBe(10);

    // Types with no server-verifiable event add nothing, whatever the client claims.
    for (const type of ['points', 'upload', 'achievement']) {
      const r = await record(cookie, { type, points: 100000 });
      expect(r.statusCode).toBe(200);
      expect(r.json().points).toBe(0);
    }
    expect((await get(cookie, '/api/stats')).totalPoints).toBe(10);

    const bad = await record(cookie, { type: 'jackpot', points: 5 });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toMatch(/type/);
  });

  it('gives the login reward once per local day', async () => {
    const { cookie } = await signUp(t.app);
    const first = await record(cookie, { type: 'login', utcOffsetMinutes: 120 });
    const second = await record(cookie, { type: 'login', utcOffsetMinutes: 120 });
    expect(first.json()).toMatchObject({ points: 10, awarded: true });
    expect(second.json()).toMatchObject({ points: 0, awarded: false, day: first.json().day });
    const summary = await get(cookie, '/api/rewards');
    expect(summary.totalPoints).toBe(10);
    expect(summary.currentStreak).toBe(1);
    expect(typeof summary.lastLoginDate).toBe('string');
  });

  it('pays concurrent duplicate awards once', async () => {
    const { cookie } = await signUp(t.app);
    const logins = await Promise.all([1, 2, 3, 4, 5].map(() => record(cookie, { type: 'login' })));
    expect(logins.every((r) => r.statusCode === 200)).toBe(true);
    expect(logins.filter((r) => r.json().awarded)).toHaveLength(1);
    await Promise.all(
      [1, 2, 3].map(() =>
        postActivity(cookie, {
          app: 'TikTok',
          adDuration: 20,
          eventId: 'same',
          gameData: { gameType: 'none', score: 0, completed: false },
        }),
      ),
    );
    expect(await get(cookie, '/api/stats')).toMatchObject({ totalPoints: 10 + 1 + 2, adsSkipped: 1 });
  });

  it("greets a first login 'Welcome!' and a later day's login 'Welcome back!'", async () => {
    const a = await signUp(t.app);
    const first = (await record(a.cookie, { type: 'login' })).json();
    expect(first).toMatchObject({ points: 10, currentStreak: 1, message: 'Welcome!' });
    // Same day again: nothing paid, and it is a return.
    expect((await record(a.cookie, { type: 'login' })).json()).toMatchObject({ points: 0, message: 'Welcome back!' });
  });

  it('grows a streak across consecutive days, pays the streak bonus, and a gap resets it', async () => {
    const a = await signUp(t.app);
    const today = (await record(a.cookie, { type: 'login' })).json().day as string;
    await seedLogin(a.user.id, addDays(today, -1));
    await seedLogin(a.user.id, addDays(today, -2));
    expect((await get(a.cookie, '/api/rewards')).currentStreak).toBe(3);

    // A login on a new day after yesterday's: streak 2, message and bonus 5 x 2.
    const b = await signUp(t.app);
    const day = (await record(b.cookie, { type: 'streak' })).json().day as string;
    await seedLogin(b.user.id, addDays(day, -1));
    const login = (await record(b.cookie, { type: 'login' })).json();
    expect(login).toMatchObject({ day, points: 20, currentStreak: 2, message: 'Welcome back! 2 day streak!' });
    // Yesterday's seeded 10 + today's login 10 + streak bonus 5 x 2.
    expect((await get(b.cookie, '/api/stats')).totalPoints).toBe(30);
    // The streak bonus is not paid twice for the same day.
    expect((await record(b.cookie, { type: 'streak' })).json().points).toBe(0);

    // A gap of a day: the run restarts at 1.
    const c = await signUp(t.app);
    const cDay = (await record(c.cookie, { type: 'login' })).json().day as string;
    await seedLogin(c.user.id, addDays(cDay, -2));
    await seedLogin(c.user.id, addDays(cDay, -3));
    expect((await get(c.cookie, '/api/rewards')).currentStreak).toBe(1);
  });

  it('unlocks Week Warrior once at a 7-day streak and pays it through the ledger', async () => {
    const { cookie, user } = await signUp(t.app);
    const today = (await record(cookie, { type: 'login' })).json().day as string;
    for (let i = 1; i <= 6; i++) await seedLogin(user.id, addDays(today, -i));
    const res = (await record(cookie, { type: 'achievement' })).json();
    expect(res.newAchievements.map((a: { id: string }) => a.id)).toEqual(['week_warrior']);
    expect(res.points).toBe(100);
    const again = (await record(cookie, { type: 'achievement' })).json();
    expect(again.newAchievements).toEqual([]);
    expect(again.points).toBe(0);
    const summary = await get(cookie, '/api/rewards');
    expect(summary.achievements).toEqual(['week_warrior']);
    expect(summary.totalPoints).toBe(70 + 100);
    const rows = await t.database.db
      .select()
      .from(pointsLedger)
      .where(and(eq(pointsLedger.userId, user.id), eq(pointsLedger.sourceEventId, 'achievement:week_warrior')));
    expect(rows).toHaveLength(1);
  });

  it('records an ad with rule points, ignores a replayed event id, and unlocks Ad Skipper once', async () => {
    const { cookie, user } = await signUp(t.app);
    await subscribe(cookie);
    const first = await postActivity(
      cookie,
      { app: 'YouTube', adDuration: 30, timeSaved: 9999, pointsEarned: 100000 },
      { 'idempotency-key': 'ad-1' },
    );
    expect(first.statusCode).toBe(201);
    expect(first.json()).toMatchObject({
      recorded: true,
      skipReward: 3,
      pointsAdded: 6,
      message: 'Ad skipped! +3 pts',
      activity: { app: 'YouTube', pointsEarned: 3, timeSaved: 30 },
    });
    const replay = await postActivity(
      cookie,
      { app: 'YouTube', adDuration: 30, timeSaved: 30, pointsEarned: 3 },
      { 'idempotency-key': 'ad-1' },
    );
    expect(replay.statusCode).toBe(200);
    expect(replay.json()).toMatchObject({ recorded: false, pointsAdded: 0 });
    expect(replay.json().activity.id).toBe(first.json().activity.id);
    expect(await get(cookie, '/api/stats')).toMatchObject({ totalPoints: 6, adsSkipped: 1, timeSaved: 30 });

    // Body eventId works too; Instagram 15 s: floor 1 + skip ceil 2.
    const insta = await postActivity(cookie, {
      app: 'Instagram',
      adDuration: 15,
      timeSaved: 15,
      pointsEarned: 1,
      eventId: 'ad-2',
    });
    expect(insta.json().pointsAdded).toBe(3);
    expect((await postActivity(cookie, { app: 'Instagram', adDuration: 15, eventId: 'ad-2' })).json().recorded).toBe(
      false,
    );

    // A memory game worth 60 -> 6 points, plus the TikTok skip reward 2.
    const game = await postActivity(cookie, {
      app: 'TikTok',
      adDuration: 20,
      timeSaved: 20,
      pointsEarned: 999,
      gameData: { gameType: 'memory', score: 60, completed: true },
    });
    expect(game.json()).toMatchObject({
      pointsAdded: 8,
      activity: { pointsEarned: 6, gameType: 'memory', gameScore: 60 },
    });

    await postActivity(cookie, {
      app: 'TikTok',
      adDuration: 20,
      gameData: { gameType: 'none', score: 0, completed: false },
    });
    const fifth = (await postActivity(cookie, { app: 'YouTube', adDuration: 30 })).json();
    expect(fifth.newAchievements.map((a: { id: string }) => a.id)).toEqual(['ad_skipper']);
    const sixth = (await postActivity(cookie, { app: 'YouTube', adDuration: 30 })).json();
    expect(sixth.newAchievements).toEqual([]);
    const unlocked = await t.database.db.select().from(achievements).where(eq(achievements.userId, user.id));
    expect(unlocked.map((a) => a.achievementId)).toEqual(['ad_skipper']);

    const list = await get(cookie, '/api/activities');
    expect(list).toHaveLength(6);
    const times = list.map((a: { createdAt: string }) => Date.parse(a.createdAt));
    expect([...times].sort((x, y) => y - x)).toEqual(times);
    // 6 + 3 + 8 + (1 + 2) + 6 + 6 + Ad Skipper 30
    expect((await get(cookie, '/api/stats')).totalPoints).toBe(62);
  });

  it('refuses unknown apps, wrong durations and impossible game scores', async () => {
    const { cookie } = await signUp(t.app);
    expect((await postActivity(cookie, { app: 'Netflix', adDuration: 30 })).statusCode).toBe(400);
    expect((await postActivity(cookie, { app: 'YouTube', adDuration: 3000 })).statusCode).toBe(400);
    const impossible = await postActivity(cookie, {
      app: 'YouTube',
      adDuration: 30,
      gameData: { gameType: 'memory', score: 100000, completed: true },
    });
    expect(impossible.statusCode).toBe(400);
    expect(
      (
        await postActivity(cookie, {
          app: 'YouTube',
          adDuration: 30,
          gameData: { gameType: 'chess', score: 1, completed: true },
        })
      ).statusCode,
    ).toBe(400);
    expect((await get(cookie, '/api/stats')).totalPoints).toBe(0);
  });

  it("never shows one user another user's stats, activities or rewards", async () => {
    const a = await signUp(t.app);
    const b = await signUp(t.app);
    await subscribe(a.cookie);
    await subscribe(b.cookie);
    await postActivity(a.cookie, { app: 'YouTube', adDuration: 30 }, { 'idempotency-key': 'shared-key' });
    await record(a.cookie, { type: 'login' });
    // The same event id belongs to each user separately.
    const bAd = await postActivity(b.cookie, { app: 'TikTok', adDuration: 20 }, { 'idempotency-key': 'shared-key' });
    expect(bAd.json().recorded).toBe(true);
    const bActs = await get(b.cookie, '/api/activities');
    expect(bActs.map((x: { app: string }) => x.app)).toEqual(['TikTok']);
    expect(await get(b.cookie, '/api/stats')).toMatchObject({ totalPoints: 4, adsSkipped: 1, timeSaved: 20 });
    expect(await get(b.cookie, '/api/rewards')).toMatchObject({
      totalPoints: 4,
      currentStreak: 0,
      lastLoginDate: null,
    });
    expect(await get(a.cookie, '/api/stats')).toMatchObject({ totalPoints: 16, adsSkipped: 1, timeSaved: 30 });
  });

  it('pays the upload reward (5 per photo content) once per content through the photos hook', async () => {
    const { cookie, user } = await signUp(t.app);
    const hooks = t.app.ctx.onPhotosUploaded ?? [];
    expect(hooks.length).toBeGreaterThan(0);
    const batch = ['a', 'b', 'c'].map((c, i) => ({ photoId: `p${i}`, contentHash: c.repeat(64) }));
    const first = await Promise.all(hooks.map((hook) => hook(user.id, batch)));
    expect(first).toContainEqual(
      expect.objectContaining({ points: 15 + 25, rewardedPhotos: 3, message: '3 photos uploaded!' }),
    );
    // The same contents again (another batch, another photo id) add nothing, not even a message.
    const again = await Promise.all(hooks.map((hook) => hook(user.id, [...batch, { ...batch[0]!, photoId: 'p9' }])));
    expect(again).toContainEqual(expect.objectContaining({ points: 0, rewardedPhotos: 0 }));
    const { totalPoints } = await get(cookie, '/api/stats');
    expect(totalPoints).toBe(15 + 25);
    expect((await get(cookie, '/api/rewards')).photosUploaded).toBe(3);
  });

  it('refuses an ad-overlay activity for a free user but records a mini-game', async () => {
    const { cookie } = await signUp(t.app);
    const overlay = await postActivity(cookie, { app: 'YouTube', adDuration: 30 });
    expect(overlay.statusCode).toBe(403);
    expect(overlay.json().message).toBe('Premium subscription required for ad overlay');
    const game = await postActivity(cookie, {
      app: 'YouTube',
      adDuration: 30,
      gameData: { gameType: 'none', score: 0, completed: false },
    });
    expect(game.statusCode).toBe(201);
    expect(game.json().pointsAdded).toBe(1 + 3);
  });

  it("reports today's points in the 7-day series", async () => {
    const { cookie } = await signUp(t.app);
    await record(cookie, { type: 'login', utcOffsetMinutes: 0 });
    const { pointsByDay } = await get(cookie, '/api/stats?utcOffsetMinutes=0');
    expect(pointsByDay.at(-1).points).toBe(10);
    expect(pointsByDay.slice(0, 6).every((d: { points: number }) => d.points === 0)).toBe(true);
  });

  it('sums the 7-day series per local day in the database: one row a day, however many entries', async () => {
    // An account's ledger grows by two entries an ad (one every 13 s, day and night, for a script)
    // and one per photo past the upload cap (0 points): 100,000 entries in 8 days made each
    // GET /api/stats read every one of them into the server (0.5 s a call, 900 calls a window).
    const { cookie, user } = await signUp(t.app);
    const now = t.clock.now().getTime();
    const entries = Array.from({ length: 3000 }, (_, i) => ({
      userId: user.id,
      source: 'activity',
      sourceEventId: `activity:seed-${i}`,
      // Every 4 minutes back from now over 8.3 days, across every local midnight of the offsets below.
      points: (i % 7) + (i % 3 === 0 ? 0 : 1),
      createdAt: new Date(now - i * 4 * 60_000 - 1000),
    }));
    for (let i = 0; i < entries.length; i += 500) {
      await t.database.db.insert(pointsLedger).values(entries.slice(i, i + 500));
    }
    for (const offset of [0, 330, -600, 840, -720]) {
      const { pointsByDay } = await get(cookie, `/api/stats?utcOffsetMinutes=${offset}`);
      expect(pointsByDay).toEqual(pointsPerDay(entries, t.clock.now(), 7, offset));
      const rows = await createLedger(t.database.db).pointsByDaySince(user.id, new Date(now - 8 * DAY_MS), offset);
      expect(rows.length).toBeLessThanOrEqual(9);
      expect(rows.reduce((s, r) => s + r.points, 0)).toBe(
        entries.filter((e) => e.createdAt.getTime() >= now - 8 * DAY_MS).reduce((s, e) => s + e.points, 0),
      );
    }
  });

  it('activates, heartbeats and deactivates the app status, paying activation once a day', async () => {
    const { cookie } = await signUp(t.app);
    expect(await get(cookie, '/api/app-status')).toEqual({
      isActive: false,
      isMonitoring: false,
      lastActivity: null,
      activeSince: null,
    });
    const on = await inject({ method: 'POST', url: '/api/app-status/activate', headers: { cookie }, payload: {} });
    expect(on.statusCode).toBe(200);
    expect(on.json()).toMatchObject({
      points: 15,
      message: 'Ready to save time!',
      status: { isActive: true, isMonitoring: true },
    });
    const since = on.json().status.activeSince;
    expect(since).toBeTruthy();
    const beat = await inject({ method: 'POST', url: '/api/app-status/heartbeat', headers: { cookie } });
    expect(beat.json().isActive).toBe(true);
    expect(Date.parse(beat.json().lastActivity)).toBeGreaterThanOrEqual(Date.parse(since));
    const again = await inject({ method: 'POST', url: '/api/app-status/activate', headers: { cookie } });
    expect(again.json()).toMatchObject({ points: 0, status: { activeSince: since } });
    const off = await inject({ method: 'POST', url: '/api/app-status/deactivate', headers: { cookie } });
    expect(off.json()).toMatchObject({ isActive: false, isMonitoring: false, activeSince: null });
    expect((await get(cookie, '/api/stats')).totalPoints).toBe(15);
  });

  it('names the achievement an activation unlocks, apart from its own 15 points', async () => {
    // 490 points: the activation's 15 reach Point Master (500), whose 75 were added unannounced and
    // shown as the activation's own ('+90 pts Ready to save time!').
    const { cookie, user } = await signUp(t.app);
    await t.database.db
      .insert(pointsLedger)
      .values({ userId: user.id, source: 'activity', sourceEventId: 'activity:seed', points: 490 });
    const on = await inject({ method: 'POST', url: '/api/app-status/activate', headers: { cookie }, payload: {} });
    expect(on.statusCode).toBe(200);
    expect(on.json()).toMatchObject({
      points: 90,
      message: 'Ready to save time!',
      newAchievements: [{ id: 'point_master', name: 'Point Master', points: 75 }],
    });
    const again = await inject({ method: 'POST', url: '/api/app-status/activate', headers: { cookie }, payload: {} });
    expect(again.json()).toMatchObject({ points: 0, newAchievements: [] });
  });

  it("pays activation again on the server clock's next day, once", async () => {
    const { cookie } = await signUp(t.app);
    const activate = async () =>
      (await inject({ method: 'POST', url: '/api/app-status/activate', headers: { cookie }, payload: {} })).json();
    const deactivate = () => inject({ method: 'POST', url: '/api/app-status/deactivate', headers: { cookie } });
    expect((await activate()).points).toBe(15);
    await deactivate();
    // The day is the server's (the app's clock), not the machine's.
    t.clock.advance(DAY_MS);
    expect((await activate()).points).toBe(15);
    await deactivate();
    expect((await activate()).points).toBe(0);
  });
});
