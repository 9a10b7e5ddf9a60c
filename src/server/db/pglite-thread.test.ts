import { sql, type SQL } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app';
import { testConfig } from '../test/harness';
import { openDatabase, type Database } from './client';

/**
 * The embedded default (a data folder, no DATABASE_URL) runs PGlite in its own thread, reached
 * through the same `pg` pool as a PostgreSQL server.
 */
let app: FastifyInstance;
let database: Database;
let config: ReturnType<typeof testConfig>;
beforeAll(async () => {
  config = testConfig();
  app = await buildApp(config);
  await app.ready();
  database = app.ctx.database;
});
afterAll(async () => {
  // The last test closes the app itself; close() again is a no-op.
  await app?.close();
  config?.cleanup();
});

const poolOf = (db: Database) => (db.db as unknown as { $client: pg.Pool }).$client;
/** The rows of a statement run on `db` (the database itself or a transaction). */
async function rows<T = Record<string, unknown>>(db: { execute: Database['db']['execute'] }, query: SQL) {
  return ((await db.execute(query)) as unknown as { rows: T[] }).rows;
}

describe('PGlite off the HTTP thread', () => {
  it('answers a request that needs no database while a slow statement is still running', async () => {
    expect(database.kind).toBe('pglite');
    let slowDone = false;
    const slow = database.db.execute(sql`select pg_sleep(2)`).then(() => {
      slowDone = true;
    });
    // On the HTTP thread the sleep would hold the event loop, and this answer would come after it.
    const res = await app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(slowDone).toBe(false);
    await slow;
    expect(slowDone).toBe(true);
  });

  it('never mixes the statements of concurrent connections', async () => {
    // Each query is Parse/Bind/Execute on the unnamed statement: interleaved, one would run another's.
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        i % 2
          ? rows(database.db, sql`select ${i}::int as v, 'int' as t`)
          : rows(database.db, sql`select ${String(i)}::text as v, 'text' as t`),
      ),
    );
    answers.forEach((r, i) => {
      expect(r[0]).toEqual(i % 2 ? { v: i, t: 'int' } : { v: String(i), t: 'text' });
    });
  });

  it('keeps a transaction to its connection: rollback and commit are each its own', async () => {
    await database.db.execute(sql`create table if not exists thread_probe (v text)`);
    const rolledBack = database.db
      .transaction(async (tx) => {
        await tx.execute(sql`insert into thread_probe values ('rolled-back')`);
        await tx.execute(sql`select pg_sleep(0.05)`);
        throw new Error('undo');
      })
      .catch((e: Error) => e.message);
    const committed = database.db.transaction(async (tx) => {
      await tx.execute(sql`insert into thread_probe values ('committed')`);
      return (await rows(tx, sql`select count(*)::int as n from thread_probe where v = 'rolled-back'`))[0];
    });
    const plain = Promise.all(
      Array.from({ length: 5 }, (_, i) => database.db.execute(sql`insert into thread_probe values (${`plain-${i}`})`)),
    );
    const [undo, seen] = await Promise.all([rolledBack, committed, plain]);
    expect(undo).toBe('undo');
    // The committed transaction never saw the other's row: each ran whole, one before the other.
    expect(seen).toEqual({ n: 0 });
    const kept = await rows<{ v: string }>(database.db, sql`select v from thread_probe order by v`);
    expect(kept.map((r) => r.v)).toEqual(['committed', 'plain-0', 'plain-1', 'plain-2', 'plain-3', 'plain-4']);
  });

  it('gives each connection its own named prepared statements', async () => {
    const pool = poolOf(database);
    const [a, b] = await Promise.all([pool.connect(), pool.connect()]);
    try {
      // pg prepares a named statement once per connection; the session is one for all of them.
      const [x, y] = await Promise.all([
        a.query({ name: 'probe', text: 'select $1::int + 1 as n', values: [1] }),
        b.query({ name: 'probe', text: 'select $1::int + 2 as n', values: [1] }),
      ]);
      expect([x.rows[0], y.rows[0]]).toEqual([{ n: 2 }, { n: 3 }]);
    } finally {
      a.release(new Error('closed, so its statements are dropped'));
      b.release();
    }
    // The closed socket reaches the thread as an event of its own, which may come after the next
    // query on another connection: ask again (each question a round trip through the thread) until
    // the cleanup has run, a bounded number of times.
    const probes = async () =>
      (await pool.query<{ name: string }>('select name from pg_prepared_statements')).rows.filter((r) =>
        r.name.endsWith('_probe'),
      );
    let left = await probes();
    for (let i = 0; i < 50 && left.length > 1; i++) left = await probes();
    expect(left).toHaveLength(1);
  });

  it('rolls back the transaction of a connection cut mid-way, and the others carry on', async () => {
    await database.db.execute(sql`create table if not exists cut_probe (v text)`);
    const client = await poolOf(database).connect();
    await client.query('begin');
    await client.query(`insert into cut_probe values ('cut')`);
    const waiting = rows(database.db, sql`select count(*)::int as n from cut_probe`);
    // Destroys the connection instead of returning it to the pool.
    client.release(new Error('cut'));
    expect((await waiting)[0]).toEqual({ n: 0 });
    expect((await rows(database.db, sql`select count(*)::int as n from cut_probe`))[0]).toEqual({ n: 0 });
  });

  it('advisory transaction locks and FOR UPDATE SKIP LOCKED work through the thread', async () => {
    await database.db.execute(
      sql`create table if not exists job_probe (id int primary key, taken boolean default false)`,
    );
    await database.db.execute(sql`insert into job_probe (id) select g from generate_series(1, 6) g`);
    const claim = () =>
      database.db.transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended('job_probe', 0))`);
        const [row] = await rows<{ id: number }>(
          tx,
          sql`select id from job_probe where not taken order by id limit 1 for update skip locked`,
        );
        const id = row!.id;
        await tx.execute(sql`update job_probe set taken = true where id = ${id}`);
        return id;
      });
    const ids = await Promise.all(Array.from({ length: 6 }, claim));
    expect([...ids].sort()).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('keeps what was written across a close and a reopen; a lost thread makes /readyz 503', async () => {
    await database.db.execute(sql`create table kept (v text)`);
    await database.db.execute(sql`insert into kept values ('still here')`);
    await app.close();
    const reopened = await openDatabase({ pgliteDir: config.pgliteDir });
    const again = await buildApp(config, { database: reopened });
    try {
      expect(await rows(reopened.db, sql`select v from kept`)).toEqual([{ v: 'still here' }]);
      expect((await again.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
      await reopened.thread!.terminate();
      expect((await reopened.lost)?.message).toMatch(/embedded database thread stopped/);
      const res = await again.inject({ method: 'GET', url: '/readyz' });
      expect(res.statusCode).toBe(503);
    } finally {
      await again.close();
      await reopened.close();
    }
  }, 120_000);
});
