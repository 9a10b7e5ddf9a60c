import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { mkdirSync } from 'node:fs';
import pg from 'pg';
import { fromRoot } from '../lib/paths';
import * as schema from './schema';

export type Schema = typeof schema;
/** Both drivers share this type, so repositories never know which one they run on. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** Cheap round trip, for readiness checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

const migrationsFolder = fromRoot('src/server/db/migrations');
/** What autovacuum would do on a server: refresh statistics and the visibility map this often. */
const PGLITE_MAINTENANCE_MS = 10 * 60 * 1000;
const POOL_CLOSE_MS = 5_000;

export async function openDatabase(opts: { databaseUrl?: string; pgliteDir: string }): Promise<Database> {
  if (opts.databaseUrl) {
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 10 });
    // An idle client losing its server must not crash the process; the next query reports it.
    pool.on('error', () => {});
    // A checked-out client (mid-transaction) losing its server emits 'error' with no pool listener
    // attached: without this the process dies of an uncaught exception; its query still rejects.
    pool.on('connect', (client) => client.on('error', () => {}));
    const db = drizzlePg(pool, { schema }) as unknown as Db;
    await migratePg(drizzlePg(pool, { schema }), { migrationsFolder });
    return {
      db,
      kind: 'postgres',
      ping: async () => {
        await pool.query('select 1');
      },
      // A client stranded by a connection lost mid-transaction can keep pool.end() waiting
      // forever; shutdown must still finish, so it waits at most POOL_CLOSE_MS.
      close: async () => {
        let timer: NodeJS.Timeout | undefined;
        const deadline = new Promise<void>((resolve) => {
          timer = setTimeout(resolve, POOL_CLOSE_MS);
          timer.unref();
        });
        await Promise.race([pool.end().catch(() => undefined), deadline]);
        clearTimeout(timer);
      },
    };
  }
  if (opts.pgliteDir !== 'memory://') mkdirSync(opts.pgliteDir, { recursive: true });
  const client = new PGlite(opts.pgliteDir);
  const pgliteDb = drizzlePglite(client, { schema });
  await migratePglite(pgliteDb, { migrationsFolder });
  // PGlite has no autovacuum: without this the planner's statistics stay those of an empty
  // table, and count(*) cannot use index-only scans. At 100,000 photos a gallery page took
  // 400-600 ms with stale statistics, and a few ms after VACUUM ANALYZE (bench/README.md, P3).
  let maintenance: NodeJS.Timeout | undefined;
  if (opts.pgliteDir !== 'memory://') {
    await client.exec('VACUUM ANALYZE');
    maintenance = setInterval(() => {
      client.exec('VACUUM ANALYZE').catch(() => {});
    }, PGLITE_MAINTENANCE_MS);
    maintenance.unref();
  }
  return {
    db: pgliteDb as unknown as Db,
    kind: 'pglite',
    ping: async () => {
      await client.query('select 1');
    },
    close: async () => {
      clearInterval(maintenance);
      await client.close();
    },
  };
}
