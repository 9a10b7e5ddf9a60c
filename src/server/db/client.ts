import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import pg from 'pg';
import { fromRoot } from '../lib/paths';
import { createNotificationHub, type Notifications } from './notifications';
import { spawnThread } from '../lib/worker-threads';
import type { PgliteThreadData, PgliteThreadMessage } from './pglite-thread';
import * as schema from './schema';

export type Schema = typeof schema;
/** Both drivers share this type, so repositories never know which one they run on. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** What triggers notify (notifications.ts): this process's writes at once, other processes' soon after. */
  notifications: Notifications;
  /** Cheap round trip, for readiness checks. */
  ping(): Promise<void>;
  /** One statement outside any transaction (maintenance such as VACUUM). */
  query(text: string): Promise<void>;
  /**
   * Runs `work` unless another run of the same name is under way, in this process or, on PostgreSQL,
   * in any process or machine on the database; `{ ran: false }` then, without running it.
   */
  runAlone<T>(name: string, work: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }>;
  /** Settles if the embedded database's thread stops on its own: the server cannot go on. */
  lost?: Promise<Error>;
  /** The embedded database's thread (tests stop it to check that the loss is reported). */
  thread?: Worker;
  close(): Promise<void>;
}

const migrationsFolder = fromRoot('src/server/db/migrations');
/** What autovacuum would do on a server: refresh statistics and the visibility map this often. */
const PGLITE_MAINTENANCE_MS = 10 * 60 * 1000;
const POOL_CLOSE_MS = 5_000;
const THREAD_CLOSE_MS = 10_000;
/** Any number: pg names the socket file after the port, and nothing listens on a TCP port. */
const SOCKET_PORT = 5432;
/**
 * Connections to the embedded thread. It runs one statement at a time whatever the number; more
 * than one lets the next statement wait in the thread's queue instead of in the pool.
 */
const PGLITE_POOL_SIZE = 4;

export async function openDatabase(opts: {
  databaseUrl?: string;
  pgliteDir: string;
  /** For `memory://` only: start from this data-dir dump (see PgliteThreadData.template). */
  pgliteTemplate?: string;
}): Promise<Database> {
  if (opts.databaseUrl) {
    return openPool(
      {
        connectionString: opts.databaseUrl,
        max: 10,
        connectionTimeoutMillis: DB_CONNECT_TIMEOUT_MS,
        keepAlive: true,
        keepAliveInitialDelayMillis: DB_KEEPALIVE_DELAY_MS,
      },
      'postgres',
    );
  }
  return openPgliteThread(opts.pgliteDir, opts.pgliteTemplate);
}

/**
 * How long a new PostgreSQL connection, or a request's wait for one of the pool's, may take.
 * node-postgres has no bound: a server that stopped answering without refusing (a failover to a
 * host not up yet, a partition, packets dropped) held every request behind the pool for ever, and
 * the listening connection stuck connecting never listened again, even once the server was back.
 * Now they fail as the database being down (503), and the listener tries again.
 */
export const DB_CONNECT_TIMEOUT_MS = 10_000;
/** TCP keep-alive after this much silence, so a connection to a vanished server is found dead. */
const DB_KEEPALIVE_DELAY_MS = 30_000;

/** The one database code path: the `pg` driver's pool, a real server's or the embedded thread's. */
async function openPool(
  config: pg.PoolConfig,
  kind: Database['kind'],
  extra: { lost?: Promise<Error>; thread?: Worker; after?: () => Promise<void> } = {},
): Promise<Database> {
  const hub = createNotificationHub(config);
  const pool = new pg.Pool({ ...config, onConnect: (client) => hub.attach(client) });
  // An idle client losing its server must not crash the process; the next query reports it.
  pool.on('error', () => {});
  // A checked-out client (mid-transaction) losing its server emits 'error' with no pool listener
  // attached: without this the process dies of an uncaught exception; its query still rejects.
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = drizzlePg(pool, { schema }) as unknown as Db;
  try {
    await migrateOnce(pool);
  } catch (err) {
    await endPool(pool);
    await extra.after?.();
    throw err;
  }
  hub.start();
  return {
    db,
    kind,
    notifications: hub.notifications,
    lost: extra.lost,
    thread: extra.thread,
    query: async (text) => {
      await pool.query(text);
    },
    ping: async () => {
      await pool.query('select 1');
    },
    runAlone: aloneIn(pool, kind),
    close: async () => {
      await hub.close();
      await endPool(pool);
      await extra.after?.();
    },
  };
}

/**
 * Two-key advisory lock space (apart from the one-key locks on blob keys, `db/locks.ts`): one key
 * for the schema's migrations.
 */
const MIGRATION_KEY = "hashtext('eyevu'), hashtext('migrations')";

/**
 * Runs the migrations the database lacks, one server at a time. Machines behind a proxy start
 * together with one DATABASE_URL, and drizzle's migrator takes no lock: each read "nothing applied"
 * and ran the same migrations, so all but one failed to start on a table that already existed (and
 * a migration that only changed rows would have run twice). The lock is a session's, so it is
 * taken and the migrations run on one connection, and a server that dies holding it releases it.
 */
async function migrateOnce(pool: pg.Pool) {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query(`select pg_advisory_lock(${MIGRATION_KEY})`);
    try {
      await migratePg(drizzlePg(client, { schema }), { migrationsFolder });
    } finally {
      await client.query(`select pg_advisory_unlock(${MIGRATION_KEY})`);
    }
  } catch (err) {
    broken = err as Error;
    throw err;
  } finally {
    // A connection whose unlock failed may still hold the lock: it is closed, not reused.
    client.release(broken);
  }
}

/**
 * `Database.runAlone`. On PostgreSQL the gate is a session advisory lock on a connection held for
 * the run (a transaction-scoped lock would keep a transaction, and its snapshot, open as long as
 * the work lasts), tried rather than waited for: the later caller has nothing left to do. A
 * process that dies mid-run drops its connection and with it the lock. PGlite is one process, whose
 * connections share one session (a session lock would be granted to all of them), so there the
 * in-process gate alone holds.
 */
function aloneIn(pool: pg.Pool, kind: Database['kind']): Database['runAlone'] {
  const running = new Set<string>();
  return async (name, work) => {
    if (running.has(name)) return { ran: false };
    running.add(name);
    try {
      if (kind === 'pglite') return { ran: true, value: await work() };
      const key = "hashtext('eyevu'), hashtext($1)";
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        const got = await client
          .query<{ got: boolean }>(`select pg_try_advisory_lock(${key}) as got`, [name])
          .then((r) => r.rows[0]?.got === true)
          .catch((err: Error) => {
            broken = err;
            throw err;
          });
        if (!got) return { ran: false };
        try {
          return { ran: true, value: await work() };
        } finally {
          await client.query(`select pg_advisory_unlock(${key})`, [name]).catch((err: Error) => {
            broken = err;
          });
        }
      } finally {
        // A connection whose unlock failed may still hold the lock: it is closed, not reused.
        client.release(broken);
      }
    } finally {
      running.delete(name);
    }
  };
}

/**
 * A client stranded by a connection lost mid-transaction can keep pool.end() waiting forever;
 * shutdown must still finish, so it waits at most POOL_CLOSE_MS.
 */
async function endPool(pool: pg.Pool) {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, POOL_CLOSE_MS);
    timer.unref();
  });
  await Promise.race([pool.end().catch(() => undefined), deadline]);
  clearTimeout(timer);
}

/**
 * PGlite in its own thread (pglite-thread.ts), reached over a Unix socket in a private folder, so a
 * slow statement never holds the HTTP thread.
 */
async function openPgliteThread(dataDir: string, template?: string): Promise<Database> {
  const socketDir = mkdtempSync(path.join(os.tmpdir(), 'eyevu-db-'));
  const workerData: PgliteThreadData = {
    dataDir,
    socketPath: path.join(socketDir, `.s.PGSQL.${SOCKET_PORT}`),
    template,
  };
  const worker = spawnThread(
    import.meta.url,
    { source: './pglite-thread.ts', bundled: './pglite-thread.js' },
    { workerData },
  );
  let closing = false;
  let lostBecause: ((err: Error) => void) | undefined;
  const lost = new Promise<Error>((resolve) => (lostBecause = resolve));
  let failure = 'the embedded database thread stopped';
  worker.on('message', (msg: PgliteThreadMessage) => {
    if (msg.type === 'failed') failure = `the embedded database thread failed: ${msg.message}`;
  });
  worker.on('error', (err: Error) => {
    failure = `the embedded database thread failed: ${err.stack ?? err.message}`;
  });
  const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
  void exited.then((code) => {
    // The socket's folder stays until close: connecting then fails as refused, which answers 503.
    if (!closing) lostBecause?.(new Error(`${failure} (exit code ${code})`));
  });

  const ready = await Promise.race([
    new Promise<true>((resolve) =>
      worker.on('message', (msg: PgliteThreadMessage) => {
        if (msg.type === 'ready') resolve(true);
      }),
    ),
    exited.then(() => false),
  ]);
  if (!ready) {
    rmSync(socketDir, { recursive: true, force: true });
    throw new Error(`${failure}; could not open ${dataDir}`);
  }

  const stop = async () => {
    closing = true;
    // The thread closes PGlite (its files flushed) and exits; a thread that does not answer is ended.
    worker.postMessage({ type: 'close' });
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), THREAD_CLOSE_MS);
      timer.unref();
    });
    if ((await Promise.race([exited, deadline])) === 'late') await worker.terminate();
    clearTimeout(timer);
    rmSync(socketDir, { recursive: true, force: true });
  };

  const database = await openPool(
    {
      host: socketDir,
      port: SOCKET_PORT,
      user: 'postgres',
      database: 'postgres',
      password: '',
      max: PGLITE_POOL_SIZE,
      // A local connection costs nothing to keep, and keeps its prepared statements.
      idleTimeoutMillis: 0,
    },
    'pglite',
    { lost, thread: worker, after: stop },
  );
  if (dataDir === 'memory://') return database;
  // PGlite has no autovacuum: without this the planner's statistics stay those of an empty
  // table, and count(*) cannot use index-only scans. At 100,000 photos a gallery page took
  // 400-600 ms with stale statistics, and a few ms after VACUUM ANALYZE (bench/README.md, P3).
  try {
    await database.query('VACUUM ANALYZE');
  } catch (err) {
    await database.close();
    throw err;
  }
  const maintenance = setInterval(() => {
    database.query('VACUUM ANALYZE').catch(() => {});
  }, PGLITE_MAINTENANCE_MS);
  maintenance.unref();
  return {
    ...database,
    close: async () => {
      clearInterval(maintenance);
      await database.close();
    },
  };
}
