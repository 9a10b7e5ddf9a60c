import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, signUp, type TestApp } from '../../test/harness';
import { createLedger } from './ledger';

/**
 * PostgreSQL only (vitest.config.ts): an award that writes the user's totals row while another
 * transaction holds it uncommitted must wait and add to what that one committed, whether the
 * row was being created (a first award) or updated. The embedded database runs one transaction at
 * a time.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

const kept = async (userId: string) => {
  const res = (await t.database.db.execute(sql`select
      (select points from points_totals where user_id = ${userId}) as kept,
      (select sum(points) from points_ledger where user_id = ${userId}) as summed`)) as unknown as {
    rows: Array<{ kept: string | null; summed: string | null }>;
  };
  return { kept: Number(res.rows[0]!.kept), summed: Number(res.rows[0]!.summed) };
};

it("an award racing an uncommitted one for the same user adds to it, the totals row's first write or a later one", async () => {
  const { user } = await signUp(t.app);
  const ledger = createLedger(t.database.db);
  const holder = new pg.Client({ connectionString: t.database.url });
  const watcher = new pg.Client({ connectionString: t.database.url });
  await Promise.all([holder.connect(), watcher.connect()]);
  try {
    for (const round of [1, 2]) {
      // Round 1 creates the user's totals row uncommitted; round 2 updates it.
      await holder.query('begin');
      await holder.query(
        `insert into points_ledger (user_id, source, source_event_id, points) values ($1, 'bonus', $2, 100)`,
        [user.id, `held:${round}`],
      );
      const award = ledger.awardInOne(user.id, [{ source: 'bonus', sourceEventId: `raced:${round}`, points: 7 }]);
      // Committed once the award waits for the held row.
      for (;;) {
        const { rows } = await watcher.query(
          `select count(*)::int as n from pg_stat_activity
           where datname = current_database() and wait_event_type = 'Lock' and query ilike '%points_ledger%'`,
        );
        if (rows[0].n > 0) break;
        await new Promise((r) => setImmediate(r));
      }
      await holder.query('commit');
      expect((await award).added).toHaveLength(1);
      const c = await kept(user.id);
      expect(c.kept).toBe(c.summed);
      expect(c.kept).toBeGreaterThanOrEqual(round * 107);
    }
  } finally {
    await Promise.all([holder.end(), watcher.end()]);
  }
});
