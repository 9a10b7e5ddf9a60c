import { eq } from 'drizzle-orm';
import pg from 'pg';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { jobs, photos } from '../../db/schema';
import { createTestApp, signUp, type TestApp } from '../../test/harness';
import { insertStoredPhoto } from '../../test/stored-photo';
import { createAnalysisService } from './analysis.service';

/** PostgreSQL only (vitest.config.ts): races the embedded database cannot run. */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

/** Until a statement of the app's waits for a lock another connection holds. */
async function untilWaiting(watcher: pg.Client) {
  for (;;) {
    const { rows } = await watcher.query(
      `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
    );
    if (rows[0].n > 0) return;
    await new Promise((r) => setImmediate(r));
  }
}

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
    await untilWaiting(watcher);
    await deleter.query('commit');
    const res = await answer;
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ queued: 9, status: { total: 9, pending: 9 } });
  } finally {
    await Promise.all([deleter.end(), watcher.end()]);
  }
});

// The photo's result and its job committed in one transaction and its smart album in the next, so
// the organizer's poll between them read 'all analysed, nothing pending', refreshed the albums
// before the album existed and stopped polling: the album stayed missing until the next visit.
it('the analysis status says nothing is pending only once the smart album shows the photo', async () => {
  const { cookie, user } = await signUp(t.app);
  const bytes = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#aa7733' } })
    .jpeg()
    .toBuffer();
  const photoId = await insertStoredPhoto(t.app, user.id, 'cat', bytes);
  await t.app.ctx.db.insert(jobs).values({ kind: 'analyze-photo', userId: user.id, photoId });
  const service = createAnalysisService(t.app.ctx, {
    analyze: async () => ({ category: 'animals', tags: ['cat'], description: 'A cat', faceCount: 0 }),
  });
  const albumWriter = new pg.Client({ connectionString: t.database.url });
  const watcher = new pg.Client({ connectionString: t.database.url });
  await Promise.all([albumWriter.connect(), watcher.connect()]);
  try {
    // Another write of this user's smart albums (a delete's, another process's) holds their lock.
    await albumWriter.query('begin');
    await albumWriter.query(`select pg_advisory_xact_lock(hashtextextended($1, 0))`, [`smart-albums:${user.id}`]);
    const drained = service.worker.drain();
    await untilWaiting(watcher);
    const poll = async () =>
      (await t.app.inject({ method: 'GET', url: '/api/photos/analysis-status', headers: { cookie } })).json();
    expect(await poll()).toMatchObject({ pending: 1 });
    await albumWriter.query('commit');
    await drained;
    expect(await poll()).toMatchObject({ pending: 0 });
    const list = await t.app.inject({ method: 'GET', url: '/api/albums', headers: { cookie } });
    expect(list.json()).toEqual([expect.objectContaining({ name: 'Animals', photoCount: 1 })]);
  } finally {
    await Promise.all([albumWriter.end(), watcher.end()]);
  }
});
