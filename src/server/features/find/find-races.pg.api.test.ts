import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/harness';
import { unfingerprintedLibrary } from './unfingerprinted';

/**
 * PostgreSQL only (vitest.config.ts): a delete can commit between the fingerprint insert's read of
 * the photo and its foreign key check; the embedded database runs one transaction at a time.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

it('a delete committed under the fingerprint insert is no 500', async () => {
  const a = await unfingerprintedLibrary(t);
  const deleter = new pg.Client({ connectionString: t.database.url });
  const watcher = new pg.Client({ connectionString: t.database.url });
  await Promise.all([deleter.connect(), watcher.connect()]);
  try {
    // The row is deleted (its file stays, as when another photo shares it), not yet committed.
    await deleter.query('begin');
    await deleter.query('delete from photos where id = $1', [a.gone.id]);
    const answer = t.app.inject({
      method: 'GET',
      url: `/api/photos/${a.ids[0]}/similar`,
      headers: { cookie: a.cookie },
    });
    // Committed once the insert waits for the deleted row's lock.
    for (;;) {
      const { rows: w } = await watcher.query(
        `select count(*)::int as n from pg_stat_activity
         where datname = current_database() and wait_event_type = 'Lock' and query ilike '%insert into photo_fingerprints%'`,
      );
      if (w[0].n > 0) break;
      await new Promise((r) => setImmediate(r));
    }
    await deleter.query('commit');
    const sim = await answer;
    expect(sim.statusCode, sim.body).toBe(200);
  } finally {
    await Promise.all([deleter.end(), watcher.end()]);
  }
});
