import { sql } from 'drizzle-orm';
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
let cleanup: () => void;
beforeAll(async () => {
  const config = testConfig();
  cleanup = config.cleanup;
  app = await buildApp(config);
  await app.ready();
  database = app.ctx.database;
}, 120_000);
afterAll(async () => {
  await app?.close();
  cleanup?.();
});

const poolOf = (db: Database) => (db.db as unknown as { $client: pg.Pool }).$client;

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
          ? database.db.execute(sql`select ${i}::int as v, 'int' as t`)
          : database.db.execute(sql`select ${String(i)}::text as v, 'text' as t`),
      ),
    );
    answers.forEach((r, i) => {
      expect(r.rows[0]).toEqual(i % 2 ? { v: i, t: 'int' } : { v: String(i), t: 'text' });
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
      return (await tx.execute(sql`select count(*)::int as n from thread_probe where v = 'rolled-back'`)).rows[0];
    });
    const plain = Promise.all(
      Array.from({ length: 5 }, (_, i) => database.db.execute(sql`insert into thread_probe values (${`plain-${i}`})`)),
    );
    const [undo, seen] = await Promise.all([rolledBack, committed, plain]);
    expect(undo).toBe('undo');
    // The committed transaction never saw the other's row: each ran whole, one before the other.
    expect(seen).toEqual({ n: 0 });
    const rows = await database.db.execute(sql`select v from thread_probe order by v`);
    expect(rows.rows.map((r) => r.v)).toEqual(['committed', 'plain-0', 'plain-1', 'plain-2', 'plain-3', 'plain-4']);
  });

  it('rolls back the transaction of a connection cut mid-way, and the others carry on', async () => {
    await database.db.execute(sql`create table if not exists cut_probe (v text)`);
    const client = await poolOf(database).connect();
    await client.query('begin');
    await client.query(`insert into cut_probe values ('cut')`);
    const waiting = database.db.execute(sql`select count(*)::int as n from cut_probe`);
    // Destroys the connection instead of returning it to the pool.
    client.release(new Error('cut'));
    expect((await waiting).rows[0]).toEqual({ n: 0 });
    expect((await database.db.execute(sql`select count(*)::int as n from cut_probe`)).rows[0]).toEqual({ n: 0 });
  });

  it('advisory transaction locks and FOR UPDATE SKIP LOCKED work through the thread', async () => {
    await database.db.execute(sql`create table if not exists job_probe (id int primary key, taken boolean default false)`);
    await database.db.execute(sql`insert into job_probe (id) select g from generate_series(1, 6) g`);
    const claim = () =>
      database.db.transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended('job_probe', 0))`);
        const row = await tx.execute(
          sql`select id from job_probe where not taken order by id limit 1 for update skip locked`,
        );
        const id = row.rows[0]?.id as number;
        await tx.execute(sql`update job_probe set taken = true where id = ${id}`);
        return id;
      });
    const ids = await Promise.all(Array.from({ length: 6 }, claim));
    expect([...ids].sort()).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('reports /readyz unavailable once the thread is gone, and says so on `lost`', async () => {
    const config = testConfig();
    const other = await buildApp(config);
    try {
      const db = other.ctx.database;
      expect((await other.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
      await db.thread!.terminate();
      expect((await db.lost)?.message).toMatch(/embedded database thread stopped/);
      const res = await other.inject({ method: 'GET', url: '/readyz' });
      expect(res.statusCode).toBe(503);
    } finally {
      await other.close();
      config.cleanup();
    }
  }, 120_000);
});

describe('PGlite data folder', () => {
  it('keeps what was written across a close and a reopen', async () => {
    const config = testConfig();
    try {
      const first = await openDatabase({ pgliteDir: config.pgliteDir });
      await first.db.execute(sql`create table kept (v text)`);
      await first.db.execute(sql`insert into kept values ('still here')`);
      await first.close();
      const second = await openDatabase({ pgliteDir: config.pgliteDir });
      expect((await second.db.execute(sql`select v from kept`)).rows).toEqual([{ v: 'still here' }]);
      await second.close();
    } finally {
      config.cleanup();
    }
  }, 120_000);
});
