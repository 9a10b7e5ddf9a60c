/**
 * The analysis queue's claim (`claim(4)`, once per batch of photos) on three queues, each against
 * the same claim on a 10-job queue (and five other users with 5 each) measured first in the same
 * database: the ceiling is the short queue, so each ratio says how the claim's cost grows.
 * - long: one user's N waiting jobs, the table's statistics renewed (as Analyze Photos does after
 *   its answer);
 * - long, no statistics: the same, planned on the statistics of the short queue (the claims before
 *   that renewal; PostgreSQL before its autovacuum; autovacuum is off for the table here);
 * - many users: USERS users with one job each (each queues fewer than 1,000, so no renewal).
 * On the embedded default the claim runs on the database's only thread, so every millisecond of it
 * is a request that waits. Target: ratio <= 2 (not linear in N nor in the users).
 * Each claimed job is put back, so every claim sees the same queue.
 *
 * `--against DIR` times another checkout's claim (DIR/src/.../analysis.repository.ts) on the same
 * databases, alternating with this one's claim by claim: before and after in one run.
 *
 *   npx tsx bench/claim.bench.ts [pglite|postgres|both=both] [N=20000] [claims=12] [USERS=3000] [--against DIR]
 */
import { sql } from 'drizzle-orm';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startCluster, stopCluster } from '../scripts/pg-cluster.mjs';
import { openDatabase, type Database, type Db } from '../src/server/db/client.js';
import { ANALYZE_JOB, createAnalysisRepository } from '../src/server/features/analysis/analysis.repository.js';
import { fmtRatio, isMain, median, printTable, type Row } from './lib/report.js';
import { removeDir } from './lib/server.js';

const SHORT = 10;
const OTHERS = 5;
const TARGET = 2;

type Scenario = 'long' | 'long-stale' | 'many';
interface Build {
  name: string;
  make: (db: Db) => { claim(limit: number, lockMs: number): Promise<unknown[]> };
}

let made = 0;
/**
 * `users` users, each with `photos` photos and a waiting analysis job for each, in one statement;
 * no files (the claim reads rows only). The jobs are queued user by user.
 */
async function usersWithQueues(db: Db, users: number, photos: number): Promise<void> {
  const tag = `q${(made += 1)}-`;
  await db.execute(sql`
    with u as (
      insert into users (email, password_hash, first_name, last_name)
      select ${tag} || k || '@bench.eyevu', 'x', 'Bench', ${tag} || k from generate_series(1, ${users}) k
      returning id),
    p as (
      insert into photos (user_id, name, mime, size, width, height, original_key, preview_key, thumbnail_key)
      select u.id, 'p' || n, 'image/jpeg', 1, 1, 1, 'k' || n, 'k' || n, 'k' || n
      from u, generate_series(1, ${photos}) n
      returning id, user_id)
    insert into jobs (kind, user_id, photo_id)
    select ${ANALYZE_JOB}, user_id, id from p order by user_id, id`);
}

/** Median claim time per build, the builds alternating claim by claim. */
async function timeClaims(db: Db, builds: Build[], claims: number): Promise<number[]> {
  const queues = builds.map((b) => b.make(db));
  const times: number[][] = builds.map(() => []);
  for (let i = 0; i <= claims; i++) {
    for (let k = 0; k < queues.length; k++) {
      const b = (i + k) % queues.length;
      const t = performance.now();
      const claimed = await queues[b]!.claim(4, 60_000);
      const took = performance.now() - t;
      if (claimed.length !== 4) throw new Error(`${builds[b]!.name}: claimed ${claimed.length} jobs, not 4`);
      if (i > 0) times[b]!.push(took);
      // Put back, so every claim sees the same queue.
      await db.execute(sql`update jobs set status = 'queued', locked_until = null where status = 'running'`);
    }
  }
  return times.map(median);
}

async function measure(
  database: Database,
  scenario: Scenario,
  builds: Build[],
  n: number,
  users: number,
  claims: number,
) {
  const { db } = database;
  // Planned on statistics no autovacuum renews behind the bench's back (PGlite has none).
  if (database.kind === 'postgres') await db.execute(sql`alter table jobs set (autovacuum_enabled = false)`);
  await usersWithQueues(db, OTHERS, OTHERS);
  await usersWithQueues(db, 1, SHORT);
  await db.execute(sql`analyze jobs`);
  const short = await timeClaims(db, builds, claims);
  if (scenario === 'many') await usersWithQueues(db, users, 1);
  else await usersWithQueues(db, 1, n);
  if (scenario === 'long') await db.execute(sql`analyze jobs`);
  const long = await timeClaims(db, builds, claims);
  return { short, long };
}

/** A fresh database per scenario: PGlite in its own folder, or a new database in the cluster. */
async function freshDatabase(clusterUrl: string | undefined, label: string) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-claim-'));
  let url: string | undefined;
  if (clusterUrl) {
    const admin = new pg.Client({ connectionString: clusterUrl });
    await admin.connect();
    await admin.query(`create database ${label}`);
    await admin.end();
    const u = new URL(clusterUrl);
    u.pathname = `/${label}`;
    url = u.toString();
  }
  const database = await openDatabase({ databaseUrl: url, pgliteDir: dir });
  return {
    database,
    async close() {
      await database.close();
      removeDir(dir);
    },
  };
}

const MEASURES: Record<Scenario, (n: number, users: number) => string> = {
  long: (n) => `one user's ${n.toLocaleString('en')} waiting jobs`,
  'long-stale': (n) => `one user's ${n.toLocaleString('en')} waiting jobs, no statistics since 10`,
  many: (_n, users) => `${users.toLocaleString('en')} users with 1 waiting job each`,
};

async function rowsFor(kind: 'pglite' | 'postgres', builds: Build[], n: number, users: number, claims: number) {
  const cluster = kind === 'postgres' ? await startCluster() : undefined;
  const rows: Row[] = [];
  try {
    for (const scenario of ['long', 'long-stale', 'many'] as const) {
      const db = await freshDatabase(cluster?.url, `claim_${scenario.replace('-', '_')}`);
      try {
        const r = await measure(db.database, scenario, builds, n, users, claims);
        builds.forEach((b, i) => {
          const ratio = r.long[i]! / r.short[i]!;
          rows.push({
            id: 'Q1',
            measure: `${kind === 'postgres' ? 'PostgreSQL' : 'PGlite'}${builds.length > 1 ? ` (${b.name})` : ''}: claim(4) with ${MEASURES[scenario](n, users)} (median of ${claims})`,
            value: `${r.long[i]!.toFixed(1)} ms`,
            ceiling: `${r.short[i]!.toFixed(1)} ms with ${SHORT}`,
            ratio: fmtRatio(ratio),
            target: `ratio <= ${TARGET}`,
            met: ratio <= TARGET,
            note: `${OTHERS} other users with ${OTHERS} jobs each; load average ${os.loadavg()[0]!.toFixed(1)}`,
          });
        });
      } finally {
        await db.close();
      }
    }
  } finally {
    if (cluster) stopCluster(cluster.dir);
  }
  return rows;
}

if (isMain(import.meta.url)) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--against');
  const against = at >= 0 ? args.splice(at, 2)[1] : undefined;
  const which = args[0] ?? 'both';
  const n = Number(args[1] ?? 20_000);
  const claims = Number(args[2] ?? 12);
  const users = Number(args[3] ?? 3000);
  (async () => {
    const builds: Build[] = [{ name: 'this checkout', make: createAnalysisRepository }];
    if (against) {
      const other = (await import(path.resolve(against, 'src/server/features/analysis/analysis.repository.ts'))) as {
        createAnalysisRepository: Build['make'];
      };
      builds.push({ name: against, make: other.createAnalysisRepository });
    }
    const rows: Row[] = [];
    if (which !== 'postgres') rows.push(...(await rowsFor('pglite', builds, n, users, claims)));
    if (which !== 'pglite') rows.push(...(await rowsFor('postgres', builds, n, users, claims)));
    printTable(rows);
  })().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
