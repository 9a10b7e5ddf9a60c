import { sql } from 'drizzle-orm';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACHIEVEMENTS,
  adCompletionPoints,
  REWARD_POINTS,
  skipReward,
  UPLOAD_REWARD_PHOTOS_PER_DAY,
  uploadReward,
} from '@domain/rewards';
import { buildApp } from '../app';
import { openDatabase, type Database } from '../db/client';
import { createTestApp, signUp, startAdBreak, testDbKind, type TestApp } from '../test/harness';
import { jpeg, multipart } from './support';

/**
 * Every award the client can ask for, sent at once to two servers on one database (on PostgreSQL
 * two processes' pools, as WEB_CONCURRENCY or two machines run them; the embedded database is one
 * process, so there they share it). Each rule must hold in the database, not in a process: the
 * daily login and activation, one ad break running per user, one award per break, the upload cap,
 * one unlock per achievement. The expected ledger is worked out from the rules in src/domain.
 */
let t: TestApp;
let otherDatabase: Database;
let other: FastifyInstance;
beforeAll(async () => {
  t = await createTestApp();
  otherDatabase =
    testDbKind === 'postgres' ? await openDatabase({ databaseUrl: t.database.url!, pgliteDir: '' }) : t.database;
  other = await buildApp(t.config, { database: otherDatabase, now: t.clock.now });
  await other.ready();
});
afterAll(async () => {
  await other?.close();
  if (otherDatabase && otherDatabase !== t?.database) await otherDatabase.close();
  await t?.close();
});

/** The i-th request's server: alternately one and the other. */
const server = (i: number) => (i % 2 ? other : t.app);
const codes = (answers: LightMyRequestResponse[]) => answers.map((r) => r.statusCode).sort();

describe(`rewards asked of two servers at once (${testDbKind})`, () => {
  it('pays each daily reward, ad break, photo and achievement once, and the upload cap across both', async () => {
    const { cookie, user } = await signUp(t.app);
    // The modal's trial: the ad overlay (a break without a game) pays, and photos are unlimited.
    const trial = await t.app.inject({
      method: 'POST',
      url: '/api/subscription',
      headers: { cookie },
      payload: { plan: 'monthly' },
    });
    expect(trial.statusCode).toBe(201);
    const post = (i: number, url: string, payload: object, headers: Record<string, string> = {}) =>
      server(i).inject({ method: 'POST', url, headers: { cookie, ...headers }, payload });

    const types = ['login', 'activation', 'streak', 'achievement'] as const;
    const rewards = await Promise.all(
      Array.from({ length: 16 }, (_, i) => post(i, '/api/rewards/record', { type: types[i % 4], points: 1000 })),
    );
    const activations = await Promise.all(Array.from({ length: 8 }, (_, i) => post(i, '/api/app-status/activate', {})));
    expect(new Set(codes([...rewards, ...activations]))).toEqual(new Set([200]));
    expect([...rewards, ...activations].reduce((s, r) => s + r.json().points, 0)).toBe(
      REWARD_POINTS.login + REWARD_POINTS.activation,
    );

    // Eight breaks started at once on both servers: one is left running, the others superseded.
    const starts = await Promise.all(Array.from({ length: 8 }, (_, i) => post(i, '/api/ad-breaks', { app: 'TikTok' })));
    expect(new Set(codes(starts))).toEqual(new Set([201]));
    t.clock.advance(20_000);
    const records = await Promise.all(
      starts.flatMap((s, i) =>
        [i, i + 1].map((k) =>
          post(k, '/api/activities', { app: 'TikTok', adDuration: 20 }, { 'idempotency-key': s.json().id }),
        ),
      ),
    );
    expect(codes(records)).toEqual([200, 201, ...Array<number>(14).fill(409)]);
    // Four more in turn, each recorded on the other server than it began on: Ad Skipper is the fifth.
    for (let i = 0; i < 4; i++) {
      const adBreak = await startAdBreak(server(i), cookie, 'Instagram');
      t.clock.advance(15_000);
      const res = await post(
        i + 1,
        '/api/activities',
        { app: 'Instagram', adDuration: 15 },
        { 'idempotency-key': adBreak.id },
      );
      expect(res.statusCode).toBe(201);
    }

    // More new photos than the day's cap, six requests at once on both servers.
    const files = await Promise.all(Array.from({ length: 120 }, (_, i) => jpeg(7000 + i)));
    const uploads = await Promise.all(
      [0, 1, 2, 3, 4, 5].map((i) => {
        const m = multipart(files.slice(i * 20, i * 20 + 20).map((bytes, j) => ({ name: `p${i}-${j}.jpg`, bytes })));
        return server(i).inject({
          method: 'POST',
          url: '/api/photos',
          headers: { cookie, ...m.headers },
          payload: m.payload,
        });
      }),
    );
    expect(new Set(codes(uploads))).toEqual(new Set([201]));

    const res = (await t.database.db.execute(
      sql`select source, count(*)::int as n, sum(points)::int as points from points_ledger
        where user_id = ${user.id} group by source order by source`,
    )) as unknown as { rows: Array<{ source: string; n: number; points: number }> };
    const achievementPoints = (ids: string[]) =>
      ACHIEVEMENTS.filter((a) => ids.includes(a.id)).reduce((s, a) => s + a.points, 0);
    const unlocked = ['first_steps', 'photo_collector', 'ad_skipper', 'point_master'];
    const adPoints = (seconds: number) => adCompletionPoints(seconds) + skipReward(seconds);
    expect(res.rows).toEqual([
      { source: 'achievement', n: unlocked.length, points: achievementPoints(unlocked) },
      { source: 'activation', n: 1, points: REWARD_POINTS.activation },
      { source: 'activity', n: 5, points: adCompletionPoints(20) + 4 * adCompletionPoints(15) },
      { source: 'login', n: 1, points: REWARD_POINTS.login },
      { source: 'skip', n: 5, points: skipReward(20) + 4 * skipReward(15) },
      { source: 'upload', n: 120, points: uploadReward(UPLOAD_REWARD_PHOTOS_PER_DAY) },
    ]);
    const summary = (await other.inject({ method: 'GET', url: '/api/rewards', headers: { cookie } })).json();
    expect(summary).toMatchObject({ currentStreak: 1, photosUploaded: 120, adsSkipped: 5 });
    expect([...summary.achievements].sort()).toEqual([...unlocked].sort());
    expect(summary.totalPoints).toBe(
      REWARD_POINTS.login +
        REWARD_POINTS.activation +
        adPoints(20) +
        4 * adPoints(15) +
        uploadReward(UPLOAD_REWARD_PHOTOS_PER_DAY) +
        achievementPoints(unlocked),
    );
  });
});
