import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ACHIEVEMENTS } from '@domain/rewards';
import { createTestApp, signUp, type TestApp } from '../../test/harness';
import { createLedger } from './ledger';

/**
 * PostgreSQL only (vitest.config.ts): a login or an activation writes its entries (the totals row)
 * and then unlocks what is due; an ad's one statement inserts the achievement first and takes the
 * totals row at its end. Both unlocking the same achievement at once is a deadlock, and PostgreSQL
 * ends one of them: that award is run again, not answered with a 500.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

it('an award ended as a deadlock victim is run again and loses nothing', async () => {
  const { user } = await signUp(t.app);
  const ledger = createLedger(t.database.db);
  const master = ACHIEVEMENTS.find((a) => a.id === 'point_master')!;
  const total = async () => {
    const res = (await t.database.db.execute(sql`select
        (select points from points_totals where user_id = ${user.id}) as kept,
        (select coalesce(sum(points), 0) from points_ledger where user_id = ${user.id}) as summed`)) as unknown as {
      rows: Array<{ kept: string | null; summed: string }>;
    };
    return { kept: Number(res.rows[0]!.kept ?? 0), summed: Number(res.rows[0]!.summed) };
  };
  // 10 points short of Point Master.
  const short = master.threshold - 10 - (await total()).summed;
  await t.database.db.execute(sql`insert into points_ledger (user_id, source, source_event_id, points)
    values (${user.id}, 'bonus', 'start', ${short})`);

  const holder = new pg.Client({ connectionString: t.database.url });
  const watcher = new pg.Client({ connectionString: t.database.url });
  await Promise.all([holder.connect(), watcher.connect()]);
  // PostgreSQL's deadlock check ends the transaction whose check runs first, which is the one whose
  // wait began first, unless its backend is slow to get a core: on a loaded machine the holder's
  // check ran first and the holder was ended instead (a CI flake). Its check now waits far longer,
  // so the victim is always the app's award (superuser only; the test clusters connect as one).
  await holder.query(`set deadlock_timeout = '60s'`).catch(() => {});
  try {
    // As a login does: its entries first (the totals row, held until it commits)...
    await holder.query('begin');
    await holder.query(
      `insert into points_ledger (user_id, source, source_event_id, points) values ($1, 'login', 'login:2026-11-29', 10)`,
      [user.id],
    );
    // ...while an ad's statement inserts Point Master and then waits for that row.
    const ad = ledger.recordEventWithAward(
      user.id,
      sql`insert into points_ledger (user_id, source, source_event_id, points)
        values (${user.id}, 'event', 'ad-1', 0) returning id, created_at`,
      [{ source: 'activity', sourceEventId: 'activity:ad-1', points: 20 }],
      [master],
    );
    for (;;) {
      const { rows } = await watcher.query(
        `select count(*)::int as n from pg_stat_activity
         where datname = current_database() and wait_event_type = 'Lock' and query ilike '%achievements%'`,
      );
      if (rows[0].n > 0) break;
      await new Promise((r) => setImmediate(r));
    }
    // The login now unlocks what is due: it waits for the ad's uncommitted Point Master, a cycle.
    // The ad, waiting longer, is ended by PostgreSQL's deadlock check and runs again behind it.
    await holder.query(
      `insert into achievements (user_id, achievement_id) values ($1, 'point_master') on conflict do nothing`,
      [user.id],
    );
    await holder.query('commit');
    const answer = await ad;
    expect(answer.added.map((e) => e.sourceEventId)).toEqual(['activity:ad-1']);
    // The login's transaction unlocked it; the rerun found it taken and paid nothing for it twice.
    expect(answer.newAchievements).toEqual([]);
    const c = await total();
    expect(c.kept).toBe(c.summed);
    expect(c.summed).toBe(master.threshold + 20);
  } finally {
    await holder.query('rollback').catch(() => {});
    await Promise.all([holder.end(), watcher.end()]);
  }
});
