import { sql } from 'drizzle-orm';
import { REWARD_POINTS, UPLOAD_REWARD_PHOTOS_PER_DAY } from '@domain/rewards';
import { dayRangeInZone } from '@domain/time-zone';
import { createRewardsService } from '../features/rewards/rewards.service';
import { createTestApp, signUp, testDbKind, type TestApp } from '../test/harness';

const HOUR = 3_600_000;

/**
 * Moving the stored zone ahead puts the user in tomorrow at once (10:30 UTC is already the next day
 * in UTC+14). A daily reward decided by the new zone's day alone was then paid twice in a minute:
 * the activation reward, and the upload cap's photos. The day of a change now counts from the
 * start of the old zone's day (rewardDayRange), so moving zones never pays more than staying put.
 */
describe(`daily rewards across a zone change (${testDbKind})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });

  /**
   * To 09:30 UTC of a coming day: Kiritimati (UTC+14) is then still on the same date, and from
   * 10:00 UTC on the next one. Each test starts there, rewards, then moves the zone at 10:30.
   */
  const toHalfPastNineUtc = () => {
    const at = new Date(t.clock.now());
    at.setUTCDate(at.getUTCDate() + 2);
    at.setUTCHours(9, 30, 0, 0);
    t.clock.advance(at.getTime() - t.clock.now().getTime());
  };
  afterAll(() => t.close());

  const inject = (method: 'GET' | 'POST', url: string, cookie?: string, payload?: object) =>
    t.app.inject({ method, url, headers: cookie ? { cookie } : {}, payload });
  /** Activates (from inactive, as the app does) and answers the reward's points. */
  const activate = async (cookie: string) => {
    expect((await inject('POST', '/api/app-status/deactivate', cookie, {})).statusCode).toBe(200);
    const res = await inject('POST', '/api/app-status/activate', cookie, {});
    expect(res.statusCode).toBe(200);
    return (res.json() as { points: number }).points;
  };
  const signIn = async (email: string, password: string, timeZone: string) => {
    const res = await inject('POST', '/api/auth/login', undefined, { email, password, timeZone });
    expect(res.statusCode).toBe(200);
    const cookie = res.headers['set-cookie'];
    return String(Array.isArray(cookie) ? cookie[0] : cookie).split(';')[0]!;
  };
  const storedZone = async (userId: string) => {
    const res = (await t.database.db.execute(
      sql`select time_zone, previous_time_zone from users where id = ${userId}`,
    )) as unknown as { rows: Array<{ time_zone: string | null; previous_time_zone: string | null }> };
    return res.rows[0];
  };

  it("a move west cannot pay the streak bonus of an earlier login day (a streak's first day has none)", async () => {
    const record = async (cookie: string, type: string) => {
      const res = await inject('POST', '/api/rewards/record', cookie, { type });
      expect(res.statusCode).toBe(200);
      return res.json() as { awarded: boolean; points: number; currentStreak: number };
    };
    const total = async (cookie: string) =>
      ((await inject('GET', '/api/rewards', cookie)).json() as { totalPoints: number }).totalPoints;
    // Registered without a zone (UTC): day 1 at 03:00, day 2 at 00:30 UTC.
    const at = new Date(t.clock.now());
    at.setUTCDate(at.getUTCDate() + 3);
    at.setUTCHours(3, 0, 0, 0);
    t.clock.advance(at.getTime() - t.clock.now().getTime());
    const { cookie, body } = await signUp(t.app);
    expect(await record(cookie, 'login')).toMatchObject({ awarded: true, currentStreak: 1 });
    t.clock.advance(21.5 * HOUR);
    expect(await record(cookie, 'login')).toMatchObject({ awarded: true, currentStreak: 2 });
    const before = await total(cookie);
    // UTC-12 is still on day 1, the streak's first day, whose bonus was never due.
    const west = await signIn(body.email, body.password, 'Etc/GMT+12');
    expect(await record(west, 'streak')).toMatchObject({ awarded: false, points: 0 });
    expect(await total(west)).toBe(before);
  });

  /** `POST /api/rewards/record` for the day's login, as each app load asks it. */
  const login = async (cookie: string) => {
    const res = await inject('POST', '/api/rewards/record', cookie, { type: 'login' });
    expect(res.statusCode).toBe(200);
    return res.json() as { awarded: boolean; points: number; currentStreak: number; day: string };
  };

  it('gives no second login day when the first sign-in moves a UTC account to UTC+14, until 20 h after the last', async () => {
    toHalfPastNineUtc();
    const { cookie, body } = await signUp(t.app);
    expect(await login(cookie)).toMatchObject({ awarded: true, currentStreak: 1 });
    t.clock.advance(HOUR);

    const moved = await signIn(body.email, body.password, 'Pacific/Kiritimati');
    // Kiritimati is on the next date already, but the UTC day it left holds today's login.
    expect(await login(moved)).toMatchObject({ awarded: false, points: 0, currentStreak: 1 });
    t.clock.advance(19 * HOUR - 60_000);
    expect(await login(moved)).toMatchObject({ awarded: false, currentStreak: 1 });
    t.clock.advance(60_000);
    expect(await login(moved)).toMatchObject({ awarded: true, points: 20, currentStreak: 2 });
  });

  it("keeps a traveller's streak when a small move east overlaps the day already counted", async () => {
    // 22:00 UTC: the day's login in UTC, the account's zone until its first sign-in with one.
    const at = new Date(t.clock.now());
    at.setUTCDate(at.getUTCDate() + 4);
    at.setUTCHours(22, 0, 0, 0);
    t.clock.advance(at.getTime() - t.clock.now().getTime());
    const { cookie, body } = await signUp(t.app);
    expect(await login(cookie)).toMatchObject({ awarded: true, currentStreak: 1 });
    // At 23:30 UTC the traveller lands an hour east (West Africa, no daylight saving): already tomorrow.
    t.clock.advance(90 * 60_000);
    const moved = await signIn(body.email, body.password, 'Africa/Lagos');
    expect(await login(moved)).toMatchObject({ awarded: false });
    // That Lagos day overlaps the UTC day already counted, yet 20 h after the last login it is its own.
    t.clock.advance(18 * HOUR);
    expect(await login(moved)).toMatchObject({ awarded: false });
    t.clock.advance(30 * 60_000);
    expect(await login(moved)).toMatchObject({ awarded: true, currentStreak: 2 });
  });

  it('gives no second login day when a weekly zone change jumps from UTC-12 to UTC+14, until 20 h after the last', async () => {
    toHalfPastNineUtc();
    const { cookie, body, user } = await signUp(t.app, { timeZone: 'Etc/GMT+12' });
    expect(await login(cookie)).toMatchObject({ awarded: true });
    t.clock.advance(HOUR);
    await t.database.db.execute(
      sql`update users set time_zone_set_at = time_zone_set_at - interval '8 days' where id = ${user.id}`,
    );
    const moved = await signIn(body.email, body.password, 'Pacific/Kiritimati');
    // Two dates ahead at once: every hour of the first 20 finds the day counted.
    for (let hour = 1; hour < 20; hour++) {
      expect(await login(moved)).toMatchObject({ awarded: false });
      t.clock.advance(HOUR);
    }
    // The date it skipped ends the streak: the hop gains no day on staying put.
    expect(await login(moved)).toMatchObject({ awarded: true, points: 10, currentStreak: 1 });
  });

  it('pays the activation reward once when the first sign-in moves a UTC account to UTC+14', async () => {
    toHalfPastNineUtc();
    const { cookie, body, user } = await signUp(t.app);
    expect(await activate(cookie)).toBe(REWARD_POINTS.activation);
    expect(await activate(cookie)).toBe(0);
    t.clock.advance(HOUR);

    const moved = await signIn(body.email, body.password, 'Pacific/Kiritimati');
    expect(await storedZone(user.id)).toEqual({ time_zone: 'Pacific/Kiritimati', previous_time_zone: null });
    // Already the 29th in Kiritimati, but the UTC day it left began the day now counted.
    expect(await activate(moved)).toBe(0);

    // The next Kiritimati day no longer overlaps that UTC day: one more reward, at its start.
    const next = dayRangeInZone(t.clock.now(), 'Pacific/Kiritimati').end;
    t.clock.advance(next.getTime() - t.clock.now().getTime() - 60_000);
    expect(await activate(moved)).toBe(0);
    t.clock.advance(60_000);
    expect(await activate(moved)).toBe(REWARD_POINTS.activation);
  });

  it('pays it once when a weekly zone change jumps from UTC-12 to UTC+14', async () => {
    toHalfPastNineUtc();
    const { cookie, body, user } = await signUp(t.app, { timeZone: 'Etc/GMT+12' });
    expect(await activate(cookie)).toBe(REWARD_POINTS.activation);
    t.clock.advance(HOUR);
    // The stored zone may change once a week: make this one old enough.
    await t.database.db.execute(
      sql`update users set time_zone_set_at = time_zone_set_at - interval '8 days' where id = ${user.id}`,
    );
    const moved = await signIn(body.email, body.password, 'Pacific/Kiritimati');
    expect(await storedZone(user.id)).toEqual({ time_zone: 'Pacific/Kiritimati', previous_time_zone: 'Etc/GMT+12' });
    // UTC-12's day (12:00 UTC the day before to 12:00 UTC today) overlaps Kiritimati's new one.
    expect(await activate(moved)).toBe(0);
    t.clock.advance(4 * HOUR);
    expect(await activate(moved)).toBe(0);
  });

  it("gives a new account its own zone's days from the start: no earlier zone is counted", async () => {
    toHalfPastNineUtc();
    t.clock.advance(90 * 60_000);
    // 11:00 UTC is 23:00 in UTC-12; its next day starts at 12:00 UTC.
    const { cookie } = await signUp(t.app, { timeZone: 'Etc/GMT+12' });
    expect(await activate(cookie)).toBe(REWARD_POINTS.activation);
    t.clock.advance(90 * 60_000);
    expect(await activate(cookie)).toBe(REWARD_POINTS.activation);
  });

  it("credits the upload cap's photos once across the hop, and the next day's again", async () => {
    toHalfPastNineUtc();
    const { body, user } = await signUp(t.app);
    const rewards = createRewardsService({ ledger: t.app.ctx.ledger, now: t.clock.now });
    let n = 0;
    const hashes = (count: number) => Array.from({ length: count }, () => (n++).toString(16).padStart(64, '0'));
    const cap = UPLOAD_REWARD_PHOTOS_PER_DAY;

    expect((await rewards.recordUpload(user.id, hashes(cap + 20))).rewardedPhotos).toBe(cap);
    t.clock.advance(HOUR);
    await signIn(body.email, body.password, 'Pacific/Kiritimati');
    expect((await rewards.recordUpload(user.id, hashes(50))).rewardedPhotos).toBe(0);

    const next = dayRangeInZone(t.clock.now(), 'Pacific/Kiritimati').end;
    t.clock.advance(next.getTime() - t.clock.now().getTime());
    expect((await rewards.recordUpload(user.id, hashes(cap + 1))).rewardedPhotos).toBe(cap);
    const points = (await t.database.db.execute(
      sql`select coalesce(sum(points), 0)::int as p from points_ledger where user_id = ${user.id} and source = 'upload'`,
    )) as unknown as { rows: Array<{ p: number }> };
    expect(Number(points.rows[0]!.p)).toBe(2 * cap * REWARD_POINTS.upload);
  });
});
