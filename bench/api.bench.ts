/**
 * P3 API throughput: `GET /api/photos?limit=100` with a session cookie, 50 connections (autocannon),
 * against a bare Fastify route on the same machine returning the same bytes from memory, measured
 * right after. On the embedded PGlite and on PostgreSQL (a throwaway cluster, scripts/pg-cluster.mjs),
 * on a 100-photo and a 100,000-photo library, in three ways:
 *   cold      `Cache-Control: no-cache` on every request: the page is made from the database each time
 *             (as after a write), only the session lookup is cached;
 *   cached    a plain repeat GET: the library version is read, the serialised page comes from memory;
 *   304       a repeat with the page's ETag in If-None-Match: the version is read, nothing is sent.
 * Targets: req/s ratio >= 0.5; p99 <= 50 ms.
 *
 *   npx tsx bench/api.bench.ts [seconds=10] [pglite|postgres|both=both]
 */
import { startCluster, stopCluster } from '../scripts/pg-cluster.mjs';
import { fmtRatio, isMain, ms, printTable, type Row } from './lib/report.js';
import { bareServer, load, type LoadResult } from './lib/load.js';
import { prepareLibraries, runStandalone, type Libraries } from './lib/libraries.js';
import { buildApp, removeDir } from './lib/server.js';
import type { Session } from './lib/http.js';

const TARGET_RATIO = 0.5;
const TARGET_P99 = 50;
const CONNECTIONS = 50;
const PATH = '/api/photos?limit=100';

type Mode = 'cold' | 'cached' | '304';
const MODES: Mode[] = ['cold', 'cached', '304'];

function headersFor(mode: Mode, s: Session, etag: string): Record<string, string> {
  if (mode === 'cold') return { cookie: s.cookie, 'cache-control': 'no-cache' };
  if (mode === '304') return { cookie: s.cookie, 'if-none-match': etag };
  return { cookie: s.cookie };
}

function row(
  db: string,
  size: string,
  mode: Mode,
  app: LoadResult,
  ceiling: LoadResult,
  kb: number,
  seconds: number,
): Row {
  const ratio = app.reqPerSec / ceiling.reqPerSec;
  // The 304 row expects 304s; every other row 200s.
  const bad = mode === '304' ? app.total - app.status3xx + app.errors : app.non2xx + app.errors;
  return {
    id: 'P3',
    measure: `GET ${PATH}, ${db}, ${size}, ${mode} (${CONNECTIONS} conns, ${seconds} s)`,
    value: `${app.reqPerSec.toFixed(0)} req/s, p99 ${ms(app.p99)}`,
    ceiling: `${ceiling.reqPerSec.toFixed(0)} req/s bare, p99 ${ms(ceiling.p99)}`,
    ratio: fmtRatio(ratio),
    target: `ratio >= ${TARGET_RATIO}; p99 <= ${TARGET_P99} ms`,
    met: ratio >= TARGET_RATIO && app.p99 <= TARGET_P99 && bad === 0,
    note: `${kb.toFixed(0)} KB per answer; app p50 ${ms(app.p50)}${bad ? `; ${bad} unexpected answers/errors` : ''}`,
  };
}

async function one(db: string, s: Session, size: string, seconds: number): Promise<Row[]> {
  const url = `${s.url}${PATH}`;
  const first = await fetch(url, { headers: { cookie: s.cookie } });
  if (!first.ok) throw new Error(`GET ${url}: ${first.status}`);
  const etag = first.headers.get('etag');
  if (!etag) throw new Error(`GET ${url}: no ETag`);
  const bytes = Buffer.from(await first.arrayBuffer());
  const results = new Map<Mode, LoadResult>();
  for (const mode of MODES) {
    results.set(mode, await load(url, { connections: CONNECTIONS, seconds, headers: headersFor(mode, s, etag) }));
  }
  const bare = await bareServer(bytes, first.headers.get('content-type') ?? 'application/json');
  let ceiling;
  try {
    ceiling = await load(`${bare.url}${PATH}`, { connections: CONNECTIONS, seconds });
  } finally {
    await bare.stop();
  }
  return MODES.map((m) => row(db, size, m, results.get(m)!, ceiling, bytes.length / 1024, seconds));
}

/** P3 on these libraries (the server's database is the libraries' own). */
export async function runApi(libs: Libraries, seconds = 10): Promise<Row[]> {
  const db = libs.kind === 'postgres' ? 'PostgreSQL' : 'PGlite';
  return [
    ...(await one(db, libs.small, '100 photos', seconds)),
    ...(await one(db, libs.big, '100,000 photos', seconds)),
  ];
}

/** P3 on PostgreSQL: a throwaway cluster holds both libraries; the cluster is removed afterwards. */
export async function runApiPostgres(seconds = 10): Promise<Row[]> {
  const cluster = await startCluster();
  try {
    const libs = await prepareLibraries({ databaseUrl: cluster.url });
    try {
      return await runApi(libs, seconds);
    } finally {
      await libs.server.stop();
      removeDir(libs.server.dataDir);
    }
  } finally {
    stopCluster(cluster.dir);
  }
}

if (isMain(import.meta.url)) {
  const seconds = Number(process.argv[2] ?? 10);
  const which = process.argv[3] ?? 'both';
  if (which === 'postgres') {
    buildApp();
    runApiPostgres(seconds)
      .then(printTable)
      .catch((err) => {
        console.error(err);
        process.exit(1);
      });
  } else {
    runStandalone(async (libs) => [
      ...(await runApi(libs, seconds)),
      ...(which === 'both' ? await runApiPostgres(seconds) : []),
    ]);
  }
}
