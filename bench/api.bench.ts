/**
 * P3 API throughput: `GET /api/photos?limit=100` with a session cookie, 50 connections (autocannon),
 * against a bare Fastify route on the same machine returning the same bytes from memory, measured
 * right after. On the embedded PGlite and on PostgreSQL (a throwaway cluster, scripts/pg-cluster.mjs),
 * on a 100-photo and a 100,000-photo library, in three ways:
 *   cold      the same page asked for with a keyset cursor above the newest photo (lib/cold.ts): a
 *             page that is never cached, read from the database and serialised on every request
 *             (`Cache-Control: no-cache` no longer is: it is answered from the checked cached page);
 *   cached    a plain repeat GET: the library version (known from the database's notifications) and
 *             the serialised page come from memory;
 *   304       a repeat with the page's ETag in If-None-Match: the same, and nothing is sent.
 * Every measured window (the bare route's too) follows WARMUP_SECONDS of the same load that is not
 * counted, so no row pays for the server's start (JIT, first-page cache, connection pool).
 * Cold rows also give the time to build one page: the median of sequential cold requests on one
 * connection (nothing queued behind anything else).
 * Targets: req/s ratio >= 0.5; p99 <= 50 ms.
 *
 *   npx tsx bench/api.bench.ts [seconds=10] [pglite|postgres|both=both] [checkout root whose build to run]
 */
import { startCluster, stopCluster } from '../scripts/pg-cluster.mjs';
import { fmtRatio, isMain, ms, printTable, type Row } from './lib/report.js';
import { bareServer, load, type LoadResult } from './lib/load.js';
import { prepareLibraries, runStandalone, type Libraries } from './lib/libraries.js';
import { buildApp, removeDir } from './lib/server.js';
import type { Session } from './lib/http.js';
import { coldPath } from './lib/cold.js';

const TARGET_RATIO = 0.5;
const TARGET_P99 = 50;
const CONNECTIONS = 50;
const PATH = '/api/photos?limit=100';
/** Uncounted load before each measured window. */
const WARMUP_SECONDS = 2;
/** Sequential cold requests timed one at a time for the per-page build time. */
const PER_PAGE_REQUESTS = 200;

type Mode = 'cold' | 'cached' | '304';
const MODES: Mode[] = ['cold', 'cached', '304'];

function headersFor(mode: Mode, s: Session, etag: string): Record<string, string> {
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
  perPage: number | null,
): Row {
  const ratio = app.reqPerSec / ceiling.reqPerSec;
  // The 304 row expects 304s; every other row 200s.
  const bad = mode === '304' ? app.total - app.status3xx + app.errors : app.non2xx + app.errors;
  return {
    id: 'P3',
    measure: `GET ${PATH}${mode === 'cold' ? '&cursor=(above the newest)' : ''}, ${db}, ${size}, ${mode} (${CONNECTIONS} conns, ${seconds} s)`,
    value: `${app.reqPerSec.toFixed(0)} req/s, p99 ${ms(app.p99)}`,
    ceiling: `${ceiling.reqPerSec.toFixed(0)} req/s bare, p99 ${ms(ceiling.p99)}`,
    ratio: fmtRatio(ratio),
    target: `ratio >= ${TARGET_RATIO}; p99 <= ${TARGET_P99} ms`,
    met: ratio >= TARGET_RATIO && app.p99 <= TARGET_P99 && bad === 0,
    note:
      `${kb.toFixed(0)} KB per answer; app p50 ${ms(app.p50)}` +
      (perPage === null ? '' : `; one page built in ${perPage.toFixed(2)} ms (p50, 1 connection)`) +
      (bad ? `; ${bad} unexpected answers/errors` : ''),
  };
}

async function one(db: string, s: Session, size: string, seconds: number): Promise<Row[]> {
  const url = `${s.url}${PATH}`;
  const first = await fetch(url, { headers: { cookie: s.cookie } });
  if (!first.ok) throw new Error(`GET ${url}: ${first.status}`);
  const etag = first.headers.get('etag');
  if (!etag) throw new Error(`GET ${url}: no ETag`);
  const bytes = Buffer.from(await first.arrayBuffer());
  const coldUrl = `${s.url}${coldPath(PATH)}`;
  const cold = await fetch(coldUrl, { headers: { cookie: s.cookie } });
  const coldBytes = Buffer.from(await cold.arrayBuffer());
  if (!cold.ok) throw new Error(`GET ${coldUrl}: ${cold.status}`);
  // The ceiling serves the cached answer's bytes: the cold answer must be the same page.
  if (!coldBytes.equals(bytes)) throw new Error(`GET ${coldUrl}: not the first page's bytes`);
  const results = new Map<Mode, LoadResult>();
  let perPage: number | null = null;
  for (const mode of MODES) {
    const headers = headersFor(mode, s, etag);
    const target = mode === 'cold' ? coldUrl : url;
    await load(target, { connections: CONNECTIONS, seconds: WARMUP_SECONDS, headers });
    results.set(mode, await load(target, { connections: CONNECTIONS, seconds, headers }));
    if (mode === 'cold') perPage = await sequentialP50(target, headers, PER_PAGE_REQUESTS);
  }
  const bare = await bareServer(bytes, first.headers.get('content-type') ?? 'application/json');
  let ceiling;
  try {
    await load(`${bare.url}${PATH}`, { connections: CONNECTIONS, seconds: WARMUP_SECONDS });
    ceiling = await load(`${bare.url}${PATH}`, { connections: CONNECTIONS, seconds });
  } finally {
    await bare.stop();
  }
  return MODES.map((m) =>
    row(db, size, m, results.get(m)!, ceiling, bytes.length / 1024, seconds, m === 'cold' ? perPage : null),
  );
}

/** Median time of `n` requests sent one after another (each waits for the whole answer). */
async function sequentialP50(url: string, headers: Record<string, string>, n: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    times.push(performance.now() - t);
    if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(n / 2)]!;
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
export async function runApiPostgres(seconds = 10, root?: string): Promise<Row[]> {
  const cluster = await startCluster();
  try {
    const libs = await prepareLibraries({ databaseUrl: cluster.url, root });
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
  const root = process.argv[4];
  if (which === 'postgres') {
    if (!root) buildApp();
    runApiPostgres(seconds, root)
      .then(printTable)
      .catch((err) => {
        console.error(err);
        process.exit(1);
      });
  } else {
    runStandalone(
      async (libs) => [
        ...(await runApi(libs, seconds)),
        ...(which === 'both' ? await runApiPostgres(seconds, root) : []),
      ],
      root,
    );
  }
}
