/**
 * The analysis queue's claim (`claim(4)`, once per batch of photos) with one user's long queue of
 * N waiting jobs and two other users with 5 each, against the same claim with that queue at 10 jobs:
 * the ceiling is the short queue, measured in the same run, so the ratio says how the claim's cost
 * grows with the queue. On the embedded default the claim runs on the database's only thread, so
 * every millisecond of it is a request that waits. Target: ratio <= 2 (not linear in N).
 * The short queue is timed first, then the long user's jobs are added and the same claims timed
 * again (each claimed job is put back, so every claim sees the same queue).
 *
 *   npx tsx bench/claim.bench.ts [pglite|postgres|both=both] [N=20000] [claims=12]
 */
import { sql } from 'drizzle-orm';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startCluster, stopCluster } from '../scripts/pg-cluster.mjs';
import { openDatabase, type Database } from '../src/server/db/client.js';
import { createAnalysisRepository } from '../src/server/features/analysis/analysis.repository.js';
import { fmtRatio, isMain, median, printTable, type Row } from './lib/report.js';
import { removeDir } from './lib/server.js';

const SHORT = 10;
const OTHERS = 5;
const TARGET = 2;

/** A user with `photos` photos, each with a waiting analysis job; no files (the claim reads rows only). */
async function userWithQueue(db: Database['db'], tag: string, photos: number): Promise<string> {
  const res = (await db.execute(sql`
    insert into users (email, password_hash, first_name, last_name)
    values (${`claim-${tag}@bench.eyevu`}, 'x', 'Bench', ${tag})
    returning id`)) as unknown as { rows: Array<{ id: string }> };
  const userId = res.rows[0]!.id;
  await db.execute(sql`
    insert into photos (user_id, name, mime, size, width, height, original_key, preview_key, thumbnail_key)
    select ${userId}, 'p' || n, 'image/jpeg', 1, 1, 1, ${tag} || n, ${tag} || n, ${tag} || n
    from generate_series(1, ${photos}) n`);
  // Queued as Analyze Photos queues a library.
  await createAnalysisRepository(db).enqueueUnanalysed(userId);
  return userId;
}

async function timeClaims(database: Database, longQueue: number, claims: number) {
  const { db } = database;
  const queue = createAnalysisRepository(db);
  const timed = async () => {
    const times: number[] = [];
    for (let i = 0; i <= claims; i++) {
      const t = performance.now();
      const claimed = await queue.claim(4, 60_000);
      times.push(performance.now() - t);
      if (claimed.length !== 4) throw new Error(`claimed ${claimed.length} jobs, not 4`);
      // Put back, so every claim sees the same queue.
      await db.execute(sql`update jobs set status = 'queued', locked_until = null where status = 'running'`);
    }
    return median(times.slice(1));
  };
  for (let i = 0; i < OTHERS; i++) await userWithQueue(db, `other${i}`, OTHERS);
  await userWithQueue(db, 'short', SHORT);
  const short = await timed();
  await userWithQueue(db, 'long', longQueue);
  const long = await timed();
  return { short, long };
}

async function rowFor(kind: 'pglite' | 'postgres', longQueue: number, claims: number): Promise<Row> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-claim-'));
  const cluster = kind === 'postgres' ? await startCluster() : undefined;
  const database = await openDatabase({ databaseUrl: cluster?.url, pgliteDir: dir });
  try {
    const r = await timeClaims(database, longQueue, claims);
    const ratio = r.long / r.short;
    return {
      id: 'Q1',
      measure: `${kind === 'postgres' ? 'PostgreSQL' : 'PGlite'}: claim(4) with one user's ${longQueue.toLocaleString('en')} waiting jobs (median of ${claims})`,
      value: `${r.long.toFixed(1)} ms`,
      ceiling: `${r.short.toFixed(1)} ms with ${SHORT}`,
      ratio: fmtRatio(ratio),
      target: `ratio <= ${TARGET}`,
      met: ratio <= TARGET,
      note: `${OTHERS} other users with ${OTHERS} jobs each; load average ${os.loadavg()[0]!.toFixed(1)}`,
    };
  } finally {
    await database.close();
    if (cluster) stopCluster(cluster.dir);
    removeDir(dir);
  }
}

if (isMain(import.meta.url)) {
  const which = process.argv[2] ?? 'both';
  const longQueue = Number(process.argv[3] ?? 20_000);
  const claims = Number(process.argv[4] ?? 12);
  (async () => {
    const rows: Row[] = [];
    if (which !== 'postgres') rows.push(await rowFor('pglite', longQueue, claims));
    if (which !== 'pglite') rows.push(await rowFor('postgres', longQueue, claims));
    printTable(rows);
  })().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
