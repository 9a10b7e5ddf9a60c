import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { SIMULATED_ADS, validateGameResult } from '@domain/games/scoring';
import { skipReward } from '@domain/rewards';
import { AD_BREAK_CLOCK_LEEWAY_MS } from '../features/activities/ad-breaks.service';
import { createTestApp, recordAdBreak, sessionCookieFrom, signUp, startAdBreak, type TestApp } from '../test/harness';
import { recordFigure, rng } from './support';

/**
 * Points only from ad breaks the server witnessed: an activity needs the id of the user's own
 * ad break, is accepted once per id, not before the ad's end (less a 2 s leeway), not for a break a
 * newer one superseded, and only with a score the game's rules allow in the ad's time. Expected
 * totals come from the rules in src/domain, never from the server's answers.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

const reaction200 = { gameType: 'reaction', score: 200, completed: true };
/** A reaction game's points plus the skip reward, by the rules. */
const rulePoints = (app: string, gameData = reaction200) => {
  const duration = SIMULATED_ADS.find((a) => a.app === app)!.durationSeconds;
  const check = validateGameResult(gameData, duration);
  if (!check.ok) throw new Error(check.reason);
  return check.points + skipReward(duration);
};
const ledger = async (userId: string) => {
  const res = (await t.database.db.execute(
    sql`select coalesce(sum(points), 0)::int s from points_ledger where user_id = ${userId}`,
  )) as unknown as { rows: Array<{ s: number }> };
  const acts = (await t.database.db.execute(
    sql`select count(*)::int n from activities where user_id = ${userId}`,
  )) as unknown as { rows: Array<{ n: number }> };
  return { points: res.rows[0]!.s, activities: acts.rows[0]!.n };
};
const post = (cookie: string, payload: object, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: '/api/activities', headers: { cookie, ...headers }, payload });
const youtube = { app: 'YouTube', adDuration: 30, gameData: reaction200 };

describe('ad-break attacks', () => {
  it('50 posts of a finished YouTube ad with reaction 200 within a second earn one ad break at most', async () => {
    const { cookie, user } = await signUp(t.app);
    // The old attack: no event id (each got a fresh one), then invented ids.
    const noId = await Promise.all(Array.from({ length: 25 }, () => post(cookie, youtube)));
    const invented = await Promise.all(
      Array.from({ length: 25 }, () => post(cookie, youtube, { 'idempotency-key': randomUUID() })),
    );
    for (const r of noId) expect(r.statusCode).toBe(400);
    for (const r of invented) expect(r.statusCode).toBe(404);
    expect(await ledger(user.id)).toEqual({ points: 0, activities: 0 });

    // One real break played out, then posted 50 times in the same second: recorded once.
    const adBreak = await startAdBreak(t.app, cookie, 'YouTube');
    t.clock.advance(30_000);
    const burst = await Promise.all(
      Array.from({ length: 50 }, () => recordAdBreak(t.app, cookie, adBreak.id, youtube)),
    );
    expect(burst.filter((r) => r.statusCode === 201)).toHaveLength(1);
    for (const r of burst.filter((x) => x.statusCode !== 201)) expect(r.json().recorded).toBe(false);

    // Fresh breaks started and posted at once, 50 times within one second of server time: refused.
    for (let i = 0; i < 50; i++) {
      const fresh = await startAdBreak(t.app, cookie, 'YouTube');
      const r = await recordAdBreak(t.app, cookie, fresh.id, youtube);
      expect(r.statusCode).toBeGreaterThanOrEqual(400);
      expect(r.statusCode).toBeLessThan(500);
      t.clock.advance(20);
    }
    const got = await ledger(user.id);
    await recordFigure(
      '3 economy',
      'ad-break burst (150 forged posts): points / one break by the rules',
      `${got.points} / ${rulePoints('YouTube')}`,
    );
    expect(got).toEqual({ points: rulePoints('YouTube'), activities: 1 });
    const stats = (await t.app.inject({ url: '/api/stats', headers: { cookie } })).json();
    expect(stats).toMatchObject({ adsSkipped: 1, timeSaved: 30 });
  }, 120_000);

  it('posting before the ad has run its duration is refused', async () => {
    const { cookie, user } = await signUp(t.app);
    const adBreak = await startAdBreak(t.app, cookie, 'YouTube');
    for (const step of [0, 1_000, 10_000, 16_000]) {
      t.clock.advance(step);
      const r = await recordAdBreak(t.app, cookie, adBreak.id, youtube);
      expect(r.statusCode).toBe(409);
      expect(r.json().message).toMatch(/^The ad is still playing: \d+ s left\.$/);
    }
    // 27 s in; the leeway starts at 28 s.
    t.clock.advance(30_000 - AD_BREAK_CLOCK_LEEWAY_MS - 27_001);
    expect((await recordAdBreak(t.app, cookie, adBreak.id, youtube)).statusCode).toBe(409);
    expect(await ledger(user.id)).toEqual({ points: 0, activities: 0 });
    t.clock.advance(1);
    expect((await recordAdBreak(t.app, cookie, adBreak.id, youtube)).statusCode).toBe(201);
  });

  it("another user's ad-break id is refused, and A keeps their break", async () => {
    const a = await signUp(t.app);
    const b = await signUp(t.app);
    const aBreak = await startAdBreak(t.app, a.cookie, 'YouTube');
    t.clock.advance(30_000);
    const viaHeader = () => post(b.cookie, youtube, { 'idempotency-key': aBreak.id });
    const viaBody = () => post(b.cookie, { ...youtube, eventId: aBreak.id });
    for (const attempt of [viaHeader, viaBody]) {
      const stolen = await attempt();
      expect(stolen.statusCode).toBe(404);
      expect(stolen.body).not.toContain(a.user.id);
    }
    // B's own break does not supersede A's.
    await startAdBreak(t.app, b.cookie, 'TikTok');
    const mine = await recordAdBreak(t.app, a.cookie, aBreak.id, youtube);
    expect(mine.statusCode).toBe(201);
    // Once recorded, B still cannot replay it (a 404, not A's activity).
    const after = await recordAdBreak(t.app, b.cookie, aBreak.id, youtube);
    expect(after.statusCode).toBe(404);
    expect(after.body).not.toContain(mine.json().activity.id);
    expect(await ledger(b.user.id)).toEqual({ points: 0, activities: 0 });
    expect((await ledger(a.user.id)).points).toBe(rulePoints('YouTube'));
  });

  it('the same ad break under another spelling of its id (letter case) is a replay, not a new event', async () => {
    const { cookie, user } = await signUp(t.app);
    const adBreak = await startAdBreak(t.app, cookie, 'YouTube');
    t.clock.advance(30_000);
    // PostgreSQL reads a uuid in any letter case; the event id the ledger keys on is text.
    const spellings = [
      adBreak.id.toUpperCase(),
      adBreak.id,
      adBreak.id.replace(/[a-f]/, (c) => c.toUpperCase()),
      adBreak.id.replace(/[a-f](?=[^a-f]*$)/, (c) => c.toUpperCase()),
    ];
    expect(new Set(spellings).size).toBe(4);
    const viaHeader = await Promise.all(spellings.map((id) => recordAdBreak(t.app, cookie, id, youtube)));
    const viaBody = await Promise.all(spellings.map((id) => post(cookie, { ...youtube, eventId: id })));
    const answers = [...viaHeader, ...viaBody];
    expect(answers.filter((r) => r.statusCode === 201)).toHaveLength(1);
    for (const r of answers.filter((x) => x.statusCode !== 201)) {
      expect(r.statusCode).toBe(200);
      expect(r.json()).toMatchObject({ recorded: false, pointsAdded: 0 });
    }
    // Long after the record window, too: a recorded break answers as a replay whatever its spelling.
    t.clock.advance(60 * 60_000);
    const late = await recordAdBreak(t.app, cookie, adBreak.id.toUpperCase(), youtube);
    expect(late.json()).toMatchObject({ recorded: false, pointsAdded: 0 });
    expect(await ledger(user.id)).toEqual({ points: rulePoints('YouTube'), activities: 1 });
    const listed = (await t.app.inject({ url: '/api/activities', headers: { cookie } })).json();
    expect(listed).toHaveLength(1);
  });

  it('a superseded ad break is refused, before and after the newer one is recorded', async () => {
    const { cookie, user } = await signUp(t.app);
    const first = await startAdBreak(t.app, cookie, 'YouTube');
    t.clock.advance(25_000);
    const second = await startAdBreak(t.app, cookie, 'YouTube');
    t.clock.advance(5_000);
    // The first has run its 30 s, but a newer break replaced it.
    const stale = await recordAdBreak(t.app, cookie, first.id, youtube);
    expect(stale.statusCode).toBe(409);
    expect(stale.json().message).toMatch(/replaced by a newer one/);
    t.clock.advance(25_000);
    expect((await recordAdBreak(t.app, cookie, second.id, youtube)).statusCode).toBe(201);
    expect((await recordAdBreak(t.app, cookie, first.id, youtube)).statusCode).toBe(409);
    expect(await ledger(user.id)).toEqual({ points: rulePoints('YouTube'), activities: 1 });
  });

  it('a score the ad leaves no time for is refused; the ad is the one the server started', async () => {
    const { cookie, user } = await signUp(t.app);
    const instagram = await startAdBreak(t.app, cookie, 'Instagram');
    t.clock.advance(15_000);
    // A 15 s Instagram break passed off as a 30 s YouTube ad (where trivia's time bonus exists).
    const asYoutube = await recordAdBreak(t.app, cookie, instagram.id, {
      app: 'YouTube',
      adDuration: 30,
      gameData: { gameType: 'trivia', score: 85, completed: true },
    });
    expect(asYoutube.statusCode).toBe(400);
    // In 15 s the 7 pauses of 2 s leave no time bonus; 8 answers need 14 s of pauses.
    for (const score of [85, 90, 81]) {
      const r = await recordAdBreak(t.app, cookie, instagram.id, {
        app: 'Instagram',
        adDuration: 15,
        gameData: { gameType: 'trivia', score, completed: true },
      });
      expect(r.statusCode, String(score)).toBe(400);
    }
    for (const score of [201, 250, 10_000]) {
      const r = await recordAdBreak(t.app, cookie, instagram.id, {
        app: 'Instagram',
        adDuration: 15,
        gameData: { gameType: 'reaction', score, completed: true },
      });
      expect(r.statusCode, String(score)).toBe(400);
    }
    expect(await ledger(user.id)).toEqual({ points: 0, activities: 0 });
    // Reaction 200 IS within the rules of a 15 s ad: the 15th target appears 9.85 s after the
    // start, so a perfect player is not refused.
    const legit = await recordAdBreak(t.app, cookie, instagram.id, {
      app: 'Instagram',
      adDuration: 15,
      gameData: reaction200,
    });
    expect(legit.statusCode).toBe(201);
    expect((await ledger(user.id)).points).toBe(rulePoints('Instagram'));
  });

  it('parallel ad breaks (many at once, several sessions) cannot multiply the rate', async () => {
    const { cookie, user, body } = await signUp(t.app);
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: body.email, password: body.password },
    });
    const cookies = [cookie, sessionCookieFrom(login)];
    const started = await Promise.all(
      Array.from({ length: 10 }, (_, i) => startAdBreak(t.app, cookies[i % 2]!, 'Instagram')),
    );
    t.clock.advance(15_000);
    const recorded = await Promise.all(
      started.map((b, i) =>
        recordAdBreak(t.app, cookies[i % 2]!, b.id, { ...youtube, app: 'Instagram', adDuration: 15 }),
      ),
    );
    expect(recorded.filter((r) => r.statusCode === 201)).toHaveLength(1);
    expect(recorded.filter((r) => r.statusCode === 409)).toHaveLength(9);
    expect(await ledger(user.id)).toEqual({ points: rulePoints('Instagram'), activities: 1 });
  });

  it('a seeded hostile client over 10 minutes of server time earns no more than back-to-back ads', async () => {
    const { cookie, user } = await signUp(t.app);
    const r = rng(152);
    const ids: string[] = [];
    const startMs = t.clock.now().getTime();
    let posts = 0;
    while (t.clock.now().getTime() - startMs < 10 * 60_000) {
      t.clock.advance(r.int(0, 4_000));
      if (ids.length === 0 || r.next() < 0.12) {
        const b = await startAdBreak(t.app, cookie, r.pick(SIMULATED_ADS).app);
        ids.push(b.id);
        continue;
      }
      // A burst at several of the breaks seen so far, each claiming the best reaction score for some ad.
      const res = await Promise.all(
        Array.from({ length: r.int(1, 6) }, () => {
          const ad = r.pick(SIMULATED_ADS);
          const body = { app: ad.app, adDuration: ad.durationSeconds, gameData: reaction200 };
          return recordAdBreak(t.app, cookie, r.pick(ids), body);
        }),
      );
      posts += res.length;
      for (const x of res) expect(x.statusCode).toBeLessThan(500);
    }
    const elapsed = t.clock.now().getTime() - startMs;
    // Recorded breaks never overlap: each needs its duration (less the leeway) before the next starts.
    const rows = (await t.database.db.execute(
      sql`select started_at, recorded_at, duration_seconds from ad_breaks
          where user_id = ${user.id} and recorded_at is not null order by started_at`,
    )) as unknown as {
      rows: Array<{ started_at: Date | string; recorded_at: Date | string; duration_seconds: number }>;
    };
    const spans = rows.rows.map((x) => ({
      start: new Date(x.started_at).getTime(),
      recorded: new Date(x.recorded_at).getTime(),
      ms: x.duration_seconds * 1000,
    }));
    for (const [i, s] of spans.entries()) {
      expect(s.recorded - s.start).toBeGreaterThanOrEqual(s.ms - AD_BREAK_CLOCK_LEEWAY_MS);
      if (i > 0) expect(s.start).toBeGreaterThanOrEqual(spans[i - 1]!.recorded);
    }
    const shortest = Math.min(...SIMULATED_ADS.map((a) => a.durationSeconds)) * 1000 - AD_BREAK_CLOCK_LEEWAY_MS;
    const best = Math.max(...SIMULATED_ADS.map((a) => rulePoints(a.app)));
    const got = await ledger(user.id);
    expect(got.activities).toBe(spans.length);
    expect(got.activities).toBeGreaterThan(0);
    expect(got.activities).toBeLessThanOrEqual(Math.floor(elapsed / shortest) + 1);
    expect(got.points).toBeLessThanOrEqual(got.activities * best + 30 + 75); // Ad Skipper, Point Master
    await recordFigure(
      '3 economy',
      'hostile ad-break client, 10 min of server time: posts / recorded breaks / points',
      `${posts} / ${got.activities} / ${got.points}`,
    );
  }, 120_000);
});
