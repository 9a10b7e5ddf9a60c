import { eq } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { photos } from '../../db/schema';
import { createTestApp, signUp, type TestApp } from '../../test/harness';

/** PostgreSQL only (vitest.config.ts): races the embedded database cannot run. */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

// The embedded database runs one transaction at a time; on PostgreSQL a delete could commit
// between the queue's read of the photos and the foreign key checks of its jobs.
it('analyze-all racing a delete of a photo queues the rest (a 500 before)', async () => {
  const { cookie, user } = await signUp(t.app);
  const [gone] = await t.app.ctx.db.select({ id: photos.id }).from(photos).where(eq(photos.userId, user.id)).limit(1);
  const deleter = new pg.Client({ connectionString: t.database.url });
  const watcher = new pg.Client({ connectionString: t.database.url });
  await Promise.all([deleter.connect(), watcher.connect()]);
  try {
    // As the app deletes: the owner's lock, then the row, not yet committed.
    await deleter.query('begin');
    await deleter.query('select id from users where id = $1 for no key update', [user.id]);
    await deleter.query('delete from photos where id = $1', [gone!.id]);
    const answer = t.app.inject({ method: 'POST', url: '/api/photos/analyze-all', headers: { cookie } });
    // Committed once Analyze Photos waits for a lock the delete holds.
    for (;;) {
      const { rows } = await watcher.query(
        `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
      );
      if (rows[0].n > 0) break;
      await new Promise((r) => setImmediate(r));
    }
    await deleter.query('commit');
    const res = await answer;
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ queued: 9, status: { total: 9, pending: 9 } });
  } finally {
    await Promise.all([deleter.end(), watcher.end()]);
  }
});
