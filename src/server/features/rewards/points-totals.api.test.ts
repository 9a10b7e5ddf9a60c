import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activities, pointsLedger } from '../../db/schema';
import { createTestApp, playAdBreak, signUp, testDbKind, type TestApp } from '../../test/harness';
import { createLedger, snapshotQuery, type LedgerEntry } from './ledger';

/**
 * The snapshot's totals (points, photos uploaded, ads skipped, time saved) come from the user's
 * `points_totals` row, kept by triggers on every insert into the ledger and the activities
 * (migration 0011), instead of summing all of the user's rows on each call. They must always be
 * what summing gives.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

type Row = Record<string, unknown>;
const rowsOf = async (q: ReturnType<typeof sql>) =>
  ((await t.database.db.execute(q)) as unknown as { rows: Row[] }).rows;

/** The totals the snapshot reads, beside the same totals summed over the user's rows. */
async function totals(userId: string) {
  const snap = await createLedger(t.database.db).snapshot(userId);
  const [summed] = await rowsOf(sql`select
      (select coalesce(sum(points), 0) from points_ledger where user_id = ${userId}) as points,
      (select count(*) from points_ledger where user_id = ${userId} and source = 'upload') as uploads,
      (select count(*) from activities where user_id = ${userId}) as ads,
      (select coalesce(sum(time_saved), 0) from activities where user_id = ${userId}) as time_saved`);
  return {
    kept: {
      totalPoints: snap.totalPoints,
      photosUploaded: snap.photosUploaded,
      adsSkipped: snap.adsSkipped,
      timeSaved: snap.timeSaved,
    },
    summed: {
      totalPoints: Number(summed!.points),
      photosUploaded: Number(summed!.uploads),
      adsSkipped: Number(summed!.ads),
      timeSaved: Number(summed!.time_saved),
    },
  };
}

const upload = (n: number): LedgerEntry => ({
  source: 'upload',
  sourceEventId: `upload:${n.toString(16).padStart(64, '0')}`,
  points: 5,
});

/** An activity row as the activities feature writes it, composed into the award statement. */
const activityInsert = (userId: string, eventId: string, timeSaved: number) =>
  t.database.db
    .insert(activities)
    .values({ userId, app: 'YouTube', adDuration: 30, timeSaved, pointsEarned: 3, eventId })
    .onConflictDoNothing({ target: [activities.userId, activities.eventId] })
    .returning({ id: activities.id, createdAt: activities.createdAt });

describe(`the snapshot's totals kept by triggers (${testDbKind})`, () => {
  it('equal the ledger and activities summed after awards, capped uploads, activities and replays', async () => {
    const { cookie, user } = await signUp(t.app);
    const ledger = createLedger(t.database.db);
    // No row yet: all zero.
    expect((await totals(user.id)).kept).toEqual({ totalPoints: 0, photosUploaded: 0, adsSkipped: 0, timeSaved: 0 });

    // The real paths: a login, an activation and two ad breaks through the API.
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/rewards/record',
      headers: { cookie },
      payload: { type: 'login' },
    });
    expect(login.statusCode).toBe(200);
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/app-status/activate', headers: { cookie } })).statusCode,
    ).toBe(200);
    // A free user's ad breaks record their mini-games.
    for (const app of ['YouTube', 'Instagram']) {
      const gameData = { gameType: 'memory', score: 60, completed: true };
      expect((await playAdBreak(t.app, cookie, { app, gameData })).res.statusCode).toBe(201);
    }

    // Uploads with a cap of 2 a day: 2 paid, 2 written with 0 points (they count as uploaded).
    const capped = await ledger.awardInOne(user.id, [1, 2, 3, 4].map(upload), { perDay: 2, at: new Date() });
    expect(capped.added.map((e) => e.points)).toEqual([5, 5, 0, 0]);
    // A replay of them with one new photo: only the new one is written (0 points, past the cap).
    const again = await ledger.awardInOne(user.id, [1, 2, 3, 4, 5].map(upload), { perDay: 2, at: new Date() });
    expect(again.added.map((e) => [e.sourceEventId, e.points])).toEqual([[upload(5).sourceEventId, 0]]);

    // An activity with its award, then its replay: nothing added.
    const first = await ledger.recordEventWithAward(
      user.id,
      activityInsert(user.id, 'e1', 40),
      [{ source: 'activity', sourceEventId: 'activity:e1', points: 7 }],
      [],
    );
    expect(first.event).toBeDefined();
    const replay = await ledger.recordEventWithAward(
      user.id,
      activityInsert(user.id, 'e1', 40),
      [{ source: 'activity', sourceEventId: 'activity:e1', points: 7 }],
      [],
    );
    expect(replay.event).toBeUndefined();

    // Awards in a transaction, and their replay (the unique event id skips them).
    const entries = [
      { source: 'streak', sourceEventId: 'streak:2026-01-02', points: 10 },
      { source: 'bonus', sourceEventId: 'bonus:1', points: 3 },
    ];
    expect((await ledger.award(user.id, entries)).added).toHaveLength(2);
    expect((await ledger.award(user.id, entries)).added).toEqual([]);
    // A skipped insert moves nothing, whatever points it carried.
    await t.database.db
      .insert(pointsLedger)
      .values([{ userId: user.id, source: 'bonus', sourceEventId: 'bonus:1', points: 1000 }])
      .onConflictDoNothing();

    const c = await totals(user.id);
    expect(c.kept).toEqual(c.summed);
    expect(c.kept.photosUploaded).toBe(5);
    expect(c.kept.adsSkipped).toBe(3);

    // What the API answers is the same.
    const summary = (await t.app.inject({ method: 'GET', url: '/api/rewards', headers: { cookie } })).json() as {
      totalPoints: number;
      photosUploaded: number;
      adsSkipped: number;
    };
    expect(summary).toMatchObject({
      totalPoints: c.summed.totalPoints,
      photosUploaded: 5,
      adsSkipped: 3,
    });
  });

  it("one statement writing several users' entries moves each user's row by their own", async () => {
    const a = (await signUp(t.app)).user.id;
    const b = (await signUp(t.app)).user.id;
    await t.database.db.insert(pointsLedger).values([
      { userId: a, source: 'x', sourceEventId: 'x:1', points: 4 },
      { userId: b, source: 'upload', sourceEventId: 'upload:1', points: 5 },
      { userId: a, source: 'upload', sourceEventId: 'upload:1', points: 0 },
      { userId: b, source: 'x', sourceEventId: 'x:1', points: 6 },
    ]);
    await t.database.db.insert(activities).values([
      { userId: a, app: 'YouTube', adDuration: 30, timeSaved: 30, pointsEarned: 3, eventId: 'm1' },
      { userId: b, app: 'YouTube', adDuration: 15, timeSaved: 15, pointsEarned: 2, eventId: 'm1' },
      { userId: b, app: 'YouTube', adDuration: 15, timeSaved: 15, pointsEarned: 2, eventId: 'm2' },
    ]);
    const ta = await totals(a);
    const tb = await totals(b);
    expect(ta.kept).toEqual({ totalPoints: 4, photosUploaded: 1, adsSkipped: 1, timeSaved: 30 });
    expect(tb.kept).toEqual({ totalPoints: 11, photosUploaded: 1, adsSkipped: 2, timeSaved: 30 });
  });

  it('many awards and activities at once for one user lose no increment (concurrent on PostgreSQL)', async () => {
    const { user } = await signUp(t.app);
    const ledger = createLedger(t.database.db);
    const work: Array<Promise<unknown>> = [];
    for (let i = 0; i < 40; i++) {
      work.push(ledger.awardInOne(user.id, [{ source: 'bonus', sourceEventId: `bonus:${i}`, points: i + 1 }]));
      // The same event again, racing the first: added once.
      work.push(ledger.awardInOne(user.id, [{ source: 'bonus', sourceEventId: `bonus:${i}`, points: i + 1 }]));
      work.push(ledger.awardInOne(user.id, [upload(1000 + i)], { perDay: 10, at: new Date() }));
      work.push(
        ledger.recordEventWithAward(
          user.id,
          activityInsert(user.id, `c${i % 30}`, 10),
          [{ source: 'activity', sourceEventId: `activity:c${i % 30}`, points: 2 }],
          [],
        ),
      );
    }
    await Promise.all(work);
    const c = await totals(user.id);
    expect(c.kept).toEqual(c.summed);
    expect(c.kept.adsSkipped).toBe(30);
    expect(c.kept.photosUploaded).toBe(40);
    // 1..40, 10 paid uploads, 30 activities' 2 points, plus the achievements they unlocked.
    const [achieved] = await rowsOf(
      sql`select coalesce(sum(points), 0) as p from points_ledger where user_id = ${user.id} and source = 'achievement'`,
    );
    expect(c.kept.totalPoints).toBe(820 + 50 + 60 + Number(achieved!.p));
  });

  it("reads the totals row, not the user's ledger entries (but the login ones, through their index)", async () => {
    const { user } = await signUp(t.app);
    const { sql: text } = snapshotQuery(t.database.db, user.id).toSQL();
    const lines = await t.database.db.transaction(async (tx) => {
      // Small test tables make a sequential scan cheapest; the plan asked for is the one at scale.
      await tx.execute(sql`set local enable_seqscan = off`);
      await tx.execute(sql`set local enable_bitmapscan = off`);
      const res = (await tx.execute(
        sql.raw(`explain (costs off) ${text.replace(/\$\d+/g, `'${user.id}'::uuid`)}`),
      )) as unknown as { rows: Array<{ 'QUERY PLAN': string }> };
      return res.rows.map((r) => r['QUERY PLAN']);
    });
    const ledgerScans = lines.filter((l) => l.includes('points_ledger'));
    expect(ledgerScans.length, lines.join('\n')).toBeGreaterThan(0);
    for (const l of ledgerScans) expect(l, lines.join('\n')).toContain('using points_ledger_user_login_idx');
    expect(
      lines.some((l) => l.includes('on activities')),
      lines.join('\n'),
    ).toBe(false);
    expect(
      lines.some((l) => l.includes('points_totals')),
      lines.join('\n'),
    ).toBe(true);
  });
});
