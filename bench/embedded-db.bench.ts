/**
 * The embedded default's database off the HTTP thread: on a 100-photo library (PGlite data dir, no
 * DATABASE_URL), `GET /api/photos?limit=100` under 50 connections (P3's load) and, at the same
 * time, `GET /healthz` (no database) under 2 connections. With PGlite on the HTTP thread the
 * liveness answers queue behind every statement; on its own thread they do not. The bare route is
 * the ceiling, as in api.bench.ts.
 *
 *   npx tsx bench/embedded-db.bench.ts [seconds=10] [repo root whose dist/ to run=this one]
 *
 * The second argument runs another checkout's build (for a before/after on one machine).
 */
import path from 'node:path';
import { fmtRatio, isMain, ms, printTable, type Row } from './lib/report.js';
import { bareServer, load } from './lib/load.js';
import { register, waitAnalysisIdle } from './lib/http.js';
import { buildApp, removeDir, ROOT, serverEnv, startServer, tempDataDir } from './lib/server.js';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const CONNECTIONS = 50;
const PROBE_CONNECTIONS = 2;
const SMALL = 100;
const DEMO = 10;

export async function runEmbeddedDb(seconds: number, root: string): Promise<Row[]> {
  const dataDir = tempDataDir('bench-embedded');
  let server = await startServer({ root, dataDir });
  try {
    const user = await register(server.url, 'small');
    await server.stop();
    // PGlite is one process at a time: seeded with the server stopped, as in lib/libraries.ts.
    await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'scripts/seed-photos.ts', user.email, String(SMALL - DEMO)],
      { cwd: root, env: serverEnv(dataDir, 0), timeout: 600_000, maxBuffer: 1 << 24 },
    );
    server = await startServer({ root, dataDir });
    const s = { ...user, url: server.url };
    await waitAnalysisIdle(s, 300_000);
    const url = `${s.url}/api/photos?limit=100`;
    const first = await fetch(url, { headers: { cookie: s.cookie } });
    if (!first.ok) throw new Error(`GET ${url}: ${first.status}`);
    const bytes = Buffer.from(await first.arrayBuffer());
    const [app, probe] = await Promise.all([
      load(url, { connections: CONNECTIONS, seconds, headers: { cookie: s.cookie } }),
      load(`${s.url}/healthz`, { connections: PROBE_CONNECTIONS, seconds }),
    ]);
    const bare = await bareServer(bytes, first.headers.get('content-type') ?? 'application/json');
    let ceiling;
    try {
      ceiling = await load(`${bare.url}/api/photos?limit=100`, { connections: CONNECTIONS, seconds });
    } finally {
      await bare.stop();
    }
    const bad = app.non2xx + app.errors;
    // autocannon's percentiles count answered requests only: a probe starved to time-outs shows 0 ms.
    const probeBad = probe.non2xx + probe.errors;
    const probeOk = probe.total > 0 && probeBad === 0;
    return [
      {
        id: 'P3e',
        measure: `embedded default, GET /api/photos?limit=100, ${SMALL} photos: req/s (${CONNECTIONS} conns, ${seconds} s)`,
        value: `${app.reqPerSec.toFixed(0)} req/s`,
        ceiling: `${ceiling.reqPerSec.toFixed(0)} req/s bare Fastify`,
        ratio: fmtRatio(app.reqPerSec / ceiling.reqPerSec),
        target: 'ratio >= 0.5',
        met: app.reqPerSec / ceiling.reqPerSec >= 0.5 && bad === 0,
        note: `app p50 ${ms(app.p50)}, p99 ${ms(app.p99)}${bad ? `; ${bad} non-2xx/errors` : ''}`,
      },
      {
        id: 'P3e',
        measure: `GET /healthz (no database) during that load (${PROBE_CONNECTIONS} conns): p99`,
        value: probe.total > 0 ? ms(probe.p99) : 'no answer',
        ceiling: `${ms(ceiling.p99)} bare p99`,
        ratio: '',
        target: '<= 50 ms',
        met: probeOk && probe.p99 <= 50,
        note: `p50 ${ms(probe.p50)}, ${probe.total} answered${probeBad ? `, ${probeBad} time-outs/errors` : ''}`,
      },
    ];
  } finally {
    await server.stop();
    removeDir(dataDir);
  }
}

if (isMain(import.meta.url)) {
  const seconds = Number(process.argv[2] ?? 10);
  const root = path.resolve(process.argv[3] ?? ROOT);
  (async () => {
    if (root === ROOT) buildApp();
    printTable(await runEmbeddedDb(seconds, root));
  })().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
