import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { readMigrationFiles, type MigrationMeta } from 'drizzle-orm/migrator';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
  /**
   * One statement outside any transaction (maintenance such as VACUUM). `long`: maintenance that may
   * run or wait past the bound on request statements (DB_QUERY_TIMEOUT_MS), such as ANALYZE waiting
   * for autovacuum's lock; on PostgreSQL it runs on a connection of its own, without the bound.
   */
  query(text: string, opts?: { long?: boolean }): Promise<void>;
  /**
   * Runs `work` unless another run of the same name is under way, in this process or, on PostgreSQL,
   * in any process or machine on the database; `{ ran: false }` then, without running it. On
   * PostgreSQL runs of different names take turns in the process (each holds a pool connection).
   */
  runAlone<T>(name: string, work: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }>;
  /**
   * Runs `work` once no other run of the same name is under way, in this process or, on PostgreSQL,
   * in any process or machine on the database; runs of one name go one at a time. `work` is told
   * whether it had to wait for another (`contended`), and `onContended` is called then, before the
   * wait. Waits at most `waitMs`, then rejects with `LockWaitTimeout` without running `work`.
   */
  serialise<T>(
    name: string,
    work: (contended: boolean) => Promise<T>,
    opts: { waitMs: number; onContended?: () => void },
  ): Promise<T>;
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
  /** PostgreSQL only: the pool's size (DATABASE_POOL_MAX). */
  databasePoolMax?: number;
  /** PostgreSQL only, tests: in place of DB_QUERY_TIMEOUT_MS. */
  databaseQueryTimeoutMs?: number;
  /** Tests: another migrations folder (a database as an earlier release left it). */
  migrationsFolder?: string;
  /** Where a start's warnings about the schema go (a database migrated by a later release). */
  onWarning?: (message: string) => void;
}): Promise<Database> {
  const migrations: MigrationOptions = {
    folder: opts.migrationsFolder ?? migrationsFolder,
    warn: opts.onWarning ?? ((message) => console.warn(message)),
  };
  if (opts.databaseUrl) {
    const queryMs = opts.databaseQueryTimeoutMs ?? DB_QUERY_TIMEOUT_MS;
    return openPool(
      {
        connectionString: opts.databaseUrl,
        max: opts.databasePoolMax ?? DB_POOL_MAX,
        connectionTimeoutMillis: DB_CONNECT_TIMEOUT_MS,
        keepAlive: true,
        keepAliveInitialDelayMillis: DB_KEEPALIVE_DELAY_MS,
      },
      'postgres',
      { migrations, bounds: { statementMs: queryMs, readMs: queryMs + DB_READ_MARGIN_MS } },
    );
  }
  return openPgliteThread(opts.pgliteDir, opts.pgliteTemplate, migrations);
}

/** Connections per process's pool unless DATABASE_POOL_MAX says otherwise (config.ts). */
const DB_POOL_MAX = 10;

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
/**
 * How long one statement of the pool's may run on PostgreSQL; request statements take
 * milliseconds. A server that vanishes mid-statement without a reset (failover to another host, a
 * partition) left the statement waiting for TCP to give up, about 15 minutes on Linux: keep-alive
 * does not probe while sent data is unacknowledged. Ten such statements held the whole pool, and
 * every request of the process answered 503 for those minutes, even once the new server answered.
 * The server cancels a statement past this bound (statement_timeout: the connection stays usable);
 * one the server has not answered DB_READ_MARGIN_MS later is given up here and its connection
 * closed (BoundedClient). Work that legitimately runs long (migrations and their lock's wait,
 * statistics renewals) runs on a connection of its own without either bound (`Database.query`'s
 * `long`).
 */
export const DB_QUERY_TIMEOUT_MS = 30_000;
/** Lets the server's own cancel (a clean error, connection kept) arrive before the client gives up. */
const DB_READ_MARGIN_MS = 5_000;
/** node-postgres's error for a statement past its `query_timeout`. */
const READ_TIMEOUT_MESSAGE = 'Query read timeout';

/** Closes a connection at once, without the goodbye a silent server would never acknowledge. */
function destroyConnection(client: pg.ClientBase) {
  (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
}

/**
 * A pool connection that closes itself when a statement outlives its `query_timeout`. node-postgres
 * only rejects the statement: the connection still waits for its answer, so the next statement on
 * it (a transaction's rollback, or the next request once drizzle's transaction handed it back to
 * the pool) queued behind the lost one and waited its own bound. Closed, every statement queued on
 * it fails at once and the pool discards it on release. `onLate` then runs: the server is most
 * likely gone for every connection.
 */
function boundedClient(onLate: (late: pg.Client) => void): typeof pg.Client {
  return class BoundedClient extends pg.Client {
    // The override must accept every overload of pg's query(): config or text, values, callback.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    override query(...args: any[]): any {
      const dropIfLate = (err: unknown) => {
        if ((err as Error | undefined)?.message !== READ_TIMEOUT_MESSAGE) return;
        destroyConnection(this);
        onLate(this);
      };
      const last = args.length - 1;
      const callback: unknown = args[last];
      if (typeof callback === 'function') {
        args[last] = (err: unknown, res: unknown) => {
          dropIfLate(err);
          (callback as (e: unknown, r: unknown) => void)(err, res);
        };
      }
      const out = (super.query as (...a: unknown[]) => unknown)(...args);
      if (out instanceof Promise) {
        return out.catch((err: unknown) => {
          dropIfLate(err);
          throw err;
        });
      }
      return out;
    }
  };
}

/**
 * The pool's idle connections, closed when a statement went unanswered past the bound: the server
 * that did not answer it, though not even to cancel it, is most likely gone (failover, partition)
 * for them as well, and after a failover each would otherwise have cost one request the whole
 * bound and a 503 before being found dead (keep-alive takes longer still). Reopening costs a
 * connect. Connections in use are left to their own statements' bounds.
 */
function idleConnections(pool: pg.Pool) {
  const open = new Set<pg.PoolClient>();
  const busy = new Set<pg.PoolClient>();
  pool.on('connect', (c) => void open.add(c));
  pool.on('remove', (c) => {
    open.delete(c);
    busy.delete(c);
  });
  pool.on('acquire', (c) => void busy.add(c));
  pool.on('release', (_err, c) => void busy.delete(c));
  return {
    close() {
      // The pool's own listener on an idle connection removes it when its socket ends.
      for (const c of open) if (!busy.has(c)) destroyConnection(c);
    },
  };
}

/**
 * A pool whose checked-out connection goes back to it (to be discarded) the moment the connection
 * ends. drizzle's transaction never releases its connection when `begin` fails (it releases in a
 * `finally` that `begin` is outside of): a `begin` sent on a connection lost to a vanished server,
 * or past its bound, held that connection checked out for good, and after as many such failures
 * as the pool has connections every request of the process answered 503 until a restart. A second
 * release of the same connection (by its holder, after this one) is a no-op.
 */
class ReleasingPool extends pg.Pool {
  // The override must accept every overload of pg-pool's connect(): a callback, or none.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override connect(...args: any[]): any {
    if (args.length > 0) return (super.connect as (...a: unknown[]) => unknown)(...args);
    return super.connect().then((client) => {
      const release = client.release.bind(client);
      let released = false;
      const once = (err?: Error | boolean) => {
        if (released) return;
        released = true;
        client.removeListener('end', ended);
        release(err);
      };
      const ended = () => once(new Error('the connection ended while checked out'));
      client.once('end', ended);
      client.release = once;
      return client;
    });
  }
}

/** The one database code path: the `pg` driver's pool, a real server's or the embedded thread's. */
async function openPool(
  config: pg.PoolConfig,
  kind: Database['kind'],
  extra: {
    migrations: MigrationOptions;
    lost?: Promise<Error>;
    thread?: Worker;
    after?: () => Promise<void>;
    /** The pool's statements: the server's statement_timeout and the client's wait for an answer. */
    bounds?: { statementMs: number; readMs: number };
  },
): Promise<Database> {
  const hub = createNotificationHub(config);
  let idle: ReturnType<typeof idleConnections> | undefined;
  const bounded: pg.PoolConfig = extra.bounds
    ? {
        Client: boundedClient(() => idle?.close()),
        statement_timeout: extra.bounds.statementMs,
        query_timeout: extra.bounds.readMs,
      }
    : {};
  const pool = new ReleasingPool({ ...config, ...bounded, onConnect: (client) => hub.attach(client) });
  if (extra.bounds) idle = idleConnections(pool);
  // An idle client losing its server must not crash the process; the next query reports it.
  pool.on('error', () => {});
  // A checked-out client (mid-transaction) losing its server emits 'error' with no pool listener
  // attached: without this the process dies of an uncaught exception; its query still rejects.
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = drizzlePg(pool, { schema }) as unknown as Db;
  let closing = false;
  try {
    await migrateOnce(() => connectUnbounded(config), extra.migrations);
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
    query: async (text, opts) => {
      if (!opts?.long || !extra.bounds) {
        await pool.query(text);
        return;
      }
      const client = await connectUnbounded(config);
      try {
        await client.query(text);
      } finally {
        await client.end().catch(() => undefined);
      }
    },
    ping: async () => {
      await pool.query('select 1');
    },
    runAlone: aloneIn(pool, kind, () => closing),
    serialise: serialiseIn(pool, kind, config.max ?? DB_POOL_MAX),
    close: async () => {
      closing = true;
      await hub.close();
      await endPool(pool);
      await extra.after?.();
    },
  };
}

/**
 * A connection outside the pool, with none of its bounds: for work that may legitimately run or
 * wait long. Its connecting is still bounded (connectionTimeoutMillis).
 */
async function connectUnbounded(config: pg.ClientConfig): Promise<pg.Client> {
  const client = new pg.Client(config);
  // A connection lost while idle must not crash the process; its next statement reports it.
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => undefined);
    throw err;
  }
  return client;
}

/**
 * Two-key advisory lock space (apart from the one-key locks on blob keys, `db/locks.ts`): one key
 * for the schema's migrations.
 */
const MIGRATION_KEY = "hashtext('eyevu'), hashtext('migrations')";

interface MigrationOptions {
  folder: string;
  warn: (message: string) => void;
}

/**
 * Runs the migrations the database lacks, one server at a time. Machines behind a proxy start
 * together with one DATABASE_URL, and drizzle's migrator takes no lock: each read "nothing applied"
 * and ran the same migrations, so all but one failed to start on a table that already existed (and
 * a migration that only changed rows would have run twice). The lock is a session's, so it is
 * taken and the migrations run on one connection, and a server that dies holding it releases it.
 * That connection is not the pool's: waiting for another server's migrations, or a migration
 * building an index on a large table, may take far longer than a request's statement may.
 */
async function migrateOnce(connect: () => Promise<pg.Client>, opts: MigrationOptions) {
  const migrations = readMigrations(opts.folder);
  const client = await connect();
  try {
    await client.query(`select pg_advisory_lock(${MIGRATION_KEY})`);
    try {
      await applyMigrations(client, migrations, opts.warn);
    } finally {
      await client.query(`select pg_advisory_unlock(${MIGRATION_KEY})`);
    }
  } finally {
    // Closed, never reused: one whose unlock failed may still hold the lock, and closing drops it.
    await client.end().catch(() => undefined);
  }
}

/** A migration with its journal tag (the files drizzle reads carry none), to name it in the log. */
type Migration = MigrationMeta & { tag: string };

function readMigrations(folder: string): Migration[] {
  const migrations = readMigrationFiles({ migrationsFolder: folder });
  const journal = JSON.parse(readFileSync(path.join(folder, 'meta', '_journal.json'), 'utf8')) as {
    entries: Array<{ tag: string }>;
  };
  return migrations.map((m, i) => ({ ...m, tag: journal.entries[i]?.tag ?? `#${i}` }));
}

/**
 * Migrations are known by their journal date, as drizzle knows them (`created_at` is the entry's
 * `when`): which of ours to run, which of those are dated before one the database has (drizzle
 * would pass them over), and which the database has that this release does not know.
 */
function planMigrations(
  migrations: Migration[],
  appliedAt: number[],
): { pending: Migration[]; late: Migration[]; unknown: number[] } {
  const applied = new Set(appliedAt);
  const ours = new Set(migrations.map((m) => m.folderMillis));
  const last = Math.max(-Infinity, ...appliedAt);
  const pending = migrations.filter((m) => !applied.has(m.folderMillis));
  return {
    pending,
    late: pending.filter((m) => m.folderMillis <= last),
    unknown: appliedAt.filter((at) => !ours.has(at)).sort((a, b) => a - b),
  };
}

/**
 * drizzle's migration step, in drizzle's own table, so a database an earlier release migrated goes
 * on from where it stopped, with two differences:
 * - drizzle runs only the migrations dated after the last one a database has, so one merged after
 *   a later-dated one was released is skipped for good. That happened: 0002_manage (dated before
 *   0003_find) was merged after 0003_find was on main, so a database started between the two never
 *   got photos.favorite or file_name, and its gallery and uploads failed. Every migration of ours
 *   the database lacks now runs, in the journal's order, whatever its date (said in the log).
 * - A database a later release migrated (a rollback) starts, with a warning. Migrations only add
 *   to the schema (new tables, nullable or defaulted columns, indexes, triggers that keep derived
 *   rows; `migrations.test.ts` holds every migration to that), so the release before runs on it,
 *   as a rolling deploy needs anyway; refusing would turn a rollback into an outage.
 * A failing migration is named in the error. All the pending ones run in one transaction, so the
 * database is left as it was (the caller releases the lock), and the next start runs them again.
 */
async function applyMigrations(client: pg.Client, migrations: Migration[], warn: (message: string) => void) {
  await client.query('CREATE SCHEMA IF NOT EXISTS "drizzle"');
  await client.query(
    'CREATE TABLE IF NOT EXISTS "drizzle"."__drizzle_migrations" (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint)',
  );
  const { rows } = await client.query<{ created_at: string }>(
    'select created_at from "drizzle"."__drizzle_migrations" where created_at is not null',
  );
  const plan = planMigrations(
    migrations,
    rows.map((r) => Number(r.created_at)),
  );
  if (plan.late.length > 0) {
    warn(
      `Applying migration ${plan.late.map((m) => m.tag).join(', ')}, dated before migrations the database ` +
        `already has: it was merged after them, and an earlier start passed it over.`,
    );
  }
  if (plan.unknown.length > 0) {
    warn(
      `The database has ${plan.unknown.length} migration(s) this release does not know (the newest dated ` +
        `${new Date(plan.unknown.at(-1)!).toISOString()}): a later release migrated it. Starting on it, ` +
        `since migrations only add to the schema; that release will find them applied when it starts again.`,
    );
  }
  if (plan.pending.length === 0) return;
  let running: Migration | undefined;
  await client.query('BEGIN');
  try {
    for (const m of plan.pending) {
      running = m;
      for (const statement of m.sql) await client.query(statement);
      await client.query('insert into "drizzle"."__drizzle_migrations" ("hash", "created_at") values ($1, $2)', [
        m.hash,
        m.folderMillis,
      ]);
    }
    running = undefined;
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    const names = plan.pending.map((m) => m.tag);
    const what =
      names.length > 1
        ? `None of ${names[0]} to ${names.at(-1)} was applied (one transaction, rolled back); the next start runs them again.`
        : `${names[0]} was not applied (rolled back); the next start runs it again.`;
    throw new Error(
      `Database migration ${running ? running.tag : `commit of ${names.join(', ')}`} failed: ${(err as Error).message}. ${what}`,
      { cause: err },
    );
  }
}

/**
 * Runs `work` on a pool connection of its own while that connection holds a session advisory lock
 * (`take` takes it, answering whether it did; `unlock` gives it back). A connection whose lock
 * statement failed, but for a wait that ran out (nothing is then held), or whose unlock failed may
 * still hold the lock: it is closed, not reused.
 */
async function holdingSessionLock<T>(
  pool: pg.Pool,
  take: (client: pg.PoolClient) => Promise<boolean>,
  unlock: [text: string, values: unknown[]],
  work: () => Promise<T>,
): Promise<{ ran: false } | { ran: true; value: T }> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    const got = await take(client).catch((err: Error) => {
      if (!(err instanceof LockWaitTimeout)) broken = err;
      throw err;
    });
    if (!got) return { ran: false };
    try {
      return { ran: true, value: await work() };
    } finally {
      await client.query(unlock[0], unlock[1]).catch((err: Error) => {
        broken = err;
      });
    }
  } finally {
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
function aloneIn(pool: pg.Pool, kind: Database['kind'], closing: () => boolean): Database['runAlone'] {
  const running = new Set<string>();
  // Runs of different names take turns in the process for their lock's connection: each held one
  // for its whole run (the sweep and the smart-album repair both start with the server), and with
  // the checkouts' (`serialiseIn`) they could hold every connection of a small pool, so that their
  // own statements and the process's requests waited out DB_CONNECT_TIMEOUT_MS and failed.
  let turns: Promise<void> = Promise.resolve();
  return async (name, work) => {
    if (running.has(name)) return { ran: false };
    running.add(name);
    let done!: () => void;
    const mine = new Promise<void>((resolve) => (done = resolve));
    try {
      if (kind === 'pglite') return { ran: true, value: await work() };
      const before = turns;
      turns = before.then(() => mine);
      await before;
      // Its turn came after the server closed (a shutdown does not wait for runs still waiting).
      if (closing()) return { ran: false };
      const key = "hashtext('eyevu'), hashtext($1)";
      return await holdingSessionLock(
        pool,
        (client) =>
          client
            .query<{ got: boolean }>(`select pg_try_advisory_lock(${key}) as got`, [name])
            .then((r) => r.rows[0]?.got === true),
        [`select pg_advisory_unlock(${key})`, [name]],
        work,
      );
    } finally {
      done();
      running.delete(name);
    }
  };
}

/**
 * `Database.serialise` waited its bound: for another run of the same name (`name`), or, on
 * PostgreSQL, for one of the connections runs may hold (`capacity`: many names at once).
 */
export class LockWaitTimeout extends Error {
  constructor(
    name: string,
    readonly waitedFor: 'name' | 'capacity' = 'name',
  ) {
    super(`waited too long for ${waitedFor === 'name' ? 'another run of' : 'a connection for'} ${name}`);
    this.name = 'LockWaitTimeout';
  }
}

/** PostgreSQL's error for a lock not granted within lock_timeout. */
const LOCK_NOT_AVAILABLE = '55P03';

/**
 * `Database.serialise`. In the process, runs of one name queue behind each other, so a process asks
 * PostgreSQL for one name's lock once at a time. On PostgreSQL the lock is a session advisory lock
 * (one-key space, apart from the blob keys' by a prefix) on a pool connection held for the run,
 * not a transaction's: work that calls other services (Stripe) would keep a transaction and its
 * snapshot open meanwhile. At most half the pool is held so, so slow runs (a payment provider
 * timing out) cannot take every connection from the requests. PGlite is one process,
 * whose connections share one session, so there the in-process queue alone holds.
 */
function serialiseIn(pool: pg.Pool, kind: Database['kind'], poolMax: number): Database['serialise'] {
  const tails = new Map<string, Promise<void>>();
  // Half the pool leaves, from 3 connections (config.ts), one for `runAlone`'s run (one at a time)
  // and one for the runs' own statements.
  const slots = { free: Math.max(1, Math.floor(poolMax / 2)), waiting: [] as Array<() => void> };
  const key = "hashtextextended('eyevu-serialise:' || $1, 0)";

  /** Settles with `promise`, or rejects at the deadline. */
  async function until<T>(promise: Promise<T>, deadline: number, late: () => LockWaitTimeout): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const over = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(late()), Math.max(0, deadline - Date.now()));
    });
    try {
      return await Promise.race([promise, over]);
    } finally {
      clearTimeout(timer);
    }
  }

  async function takeSlot(deadline: number, name: string) {
    if (slots.free > 0) {
      slots.free -= 1;
      return;
    }
    let granted!: () => void;
    const turn = new Promise<void>((resolve) => (granted = resolve));
    slots.waiting.push(granted);
    try {
      await until(turn, deadline, () => new LockWaitTimeout(name, 'capacity'));
    } catch (err) {
      const at = slots.waiting.indexOf(granted);
      if (at >= 0) slots.waiting.splice(at, 1);
      // Granted in the same moment as the deadline: handed on, not lost.
      else giveSlot();
      throw err;
    }
  }
  function giveSlot() {
    const next = slots.waiting.shift();
    if (next) next();
    else slots.free += 1;
  }

  /** Takes the name's lock on PostgreSQL; answers whether another held it. */
  async function lockOn(client: pg.PoolClient, name: string, deadline: number, contended: () => void) {
    const tried = await client.query<{ got: boolean }>(`select pg_try_advisory_lock(${key}) as got`, [name]);
    if (tried.rows[0]?.got === true) return false;
    contended();
    // A session lock taken inside a transaction outlives it; the transaction scopes lock_timeout.
    await client.query('begin');
    try {
      const ms = Math.max(1, deadline - Date.now());
      await client.query(`select set_config('lock_timeout', $1, true)`, [`${ms}ms`]);
      await client.query(`select pg_advisory_lock(${key})`, [name]);
      await client.query('commit');
    } catch (err) {
      await client.query('rollback').catch(() => undefined);
      if ((err as { code?: string }).code === LOCK_NOT_AVAILABLE) throw new LockWaitTimeout(name);
      throw err;
    }
    return true;
  }

  return async (name, work, { waitMs, onContended }) => {
    const deadline = Date.now() + waitMs;
    let contended = false;
    const tell = () => {
      if (contended) return;
      contended = true;
      onContended?.();
    };
    const before = tails.get(name);
    let finished!: () => void;
    const mine = new Promise<void>((resolve) => (finished = resolve));
    // The next run waits for this one and, if this one gave up waiting, for the one before it.
    const tail = (before ?? Promise.resolve()).then(() => mine);
    tails.set(name, tail);
    try {
      if (before) {
        tell();
        await until(before, deadline, () => new LockWaitTimeout(name));
      }
      if (kind === 'pglite') return await work(contended);
      await takeSlot(deadline, name);
      try {
        const held = await holdingSessionLock(
          pool,
          (client) => lockOn(client, name, deadline, tell).then(() => true),
          [`select pg_advisory_unlock(${key})`, [name]],
          () => work(contended),
        );
        // Taken, or thrown: a wait past the deadline is a LockWaitTimeout.
        if (!held.ran) throw new Error('serialise: the lock was not taken');
        return held.value;
      } finally {
        giveSlot();
      }
    } finally {
      finished();
      if (tails.get(name) === tail) tails.delete(name);
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
async function openPgliteThread(
  dataDir: string,
  template: string | undefined,
  migrations: MigrationOptions,
): Promise<Database> {
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
    { migrations, lost, thread: worker, after: stop },
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
