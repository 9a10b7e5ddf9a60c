import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, signUp, type TestApp } from '../test/harness';
import { jpeg, multipart } from './support';

/**
 * PostgreSQL only (vitest.config.ts). An upload and the daily login and activation rewards hold the
 * user's row so that the user's writes of their kind run one at a time. Every insert of a row that
 * references the user (a ledger entry, an achievement, an activity, a session, an album...) checks
 * its foreign key with FOR KEY SHARE on that same row, which FOR UPDATE blocks and FOR NO KEY UPDATE
 * does not. Held FOR UPDATE, the row made any award whose one statement had taken a row the login or
 * the upload needed next (the totals row, an achievement, the library row) wait for them in turn: a
 * deadlock, found by the concurrency fuzzer as an upload answered 500 and awards stalled a second
 * per round. Here another transaction holds such a row, and its own foreign-key insert must not
 * wait for the app's hold on the user's row.
 */
let t: TestApp;
let watcher: pg.Client;
beforeAll(async () => {
  t = await createTestApp();
  watcher = new pg.Client({ connectionString: t.database.url });
  await watcher.connect();
});
afterAll(async () => {
  await watcher?.end();
  await t?.close();
});

/** Until a backend of this database waits for a lock in a statement that matches `like`. */
async function waitingIn(like: string) {
  for (;;) {
    const { rows } = await watcher.query(
      `select count(*)::int as n from pg_stat_activity
       where datname = current_database() and wait_event_type = 'Lock' and query ilike $1`,
      [like],
    );
    if (rows[0].n > 0) return;
    await new Promise((r) => setImmediate(r));
  }
}

/**
 * Holds `hold` (a row the app's transaction needs after its user lock) in a transaction of its own,
 * starts `app`, waits until it queues behind that row, then inserts a ledger entry of the user (a
 * foreign-key check on the user's row) as an award would: answers whether that insert went through.
 */
async function keyShareWhileAppHoldsUser(
  userId: string,
  hold: string,
  appWaitsIn: string,
  app: () => Promise<unknown>,
) {
  const other = new pg.Client({ connectionString: t.database.url });
  await other.connect();
  // Not waiting at all is the point: a wait means the app's hold conflicts with the key check.
  await other.query(`set lock_timeout = '300ms'`);
  // Its own deadlock check far later than the app's, so a cycle (the defect) ends the app's side.
  await other.query(`set deadlock_timeout = '60s'`).catch(() => {});
  let answer: Promise<unknown> | undefined;
  try {
    await other.query('begin');
    await other.query(hold, [userId]);
    answer = app();
    await waitingIn(appWaitsIn);
    const inserted = await other
      .query(
        `insert into points_ledger (user_id, source, source_event_id, points) values ($1, 'bonus', 'key-share-check', 0)`,
        [userId],
      )
      .then(
        () => 'inserted',
        (err: Error) => err.message,
      );
    await other.query(inserted === 'inserted' ? 'commit' : 'rollback');
    return { inserted, answer: await answer };
  } finally {
    await other.query('rollback').catch(() => {});
    await answer?.catch(() => {});
    await other.end();
  }
}

it("an upload's hold on the user's row lets the user's other inserts check their foreign key", async () => {
  const { cookie, user } = await signUp(t.app);
  const m = multipart([{ name: 'held.jpg', bytes: await jpeg(77) }]);
  const { inserted, answer } = await keyShareWhileAppHoldsUser(
    user.id,
    // The library row, which the upload's insert updates (its trigger) after taking the user's row.
    'select 1 from photo_library where user_id = $1 for update',
    '%insert into "photos"%',
    () => t.app.inject({ method: 'POST', url: '/api/photos', headers: { cookie, ...m.headers }, payload: m.payload }),
  );
  expect(inserted).toBe('inserted');
  expect((answer as { statusCode: number }).statusCode).toBe(201);
});

it("the daily login's hold on the user's row lets the user's other inserts check their foreign key", async () => {
  const { cookie, user } = await signUp(t.app);
  // A totals row to hold (the first entry makes it).
  await t.database.db.execute(sql`insert into points_ledger (user_id, source, source_event_id, points)
    values (${user.id}, 'bonus', 'start', 0)`);
  // The next day: the sign-up counted today's login.
  t.clock.advance(86_400_000);
  const { inserted, answer } = await keyShareWhileAppHoldsUser(
    user.id,
    // The totals row, which the login's entries update (their trigger) after it takes the user's row.
    'select 1 from points_totals where user_id = $1 for update',
    '%points_ledger%',
    () =>
      t.app.inject({
        method: 'POST',
        url: '/api/rewards/record',
        headers: { cookie },
        payload: { type: 'login', utcOffsetMinutes: 0 },
      }),
  );
  expect(inserted).toBe('inserted');
  expect((answer as { statusCode: number }).statusCode).toBe(200);
});
