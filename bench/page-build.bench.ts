/**
 * P3's page build, before/after on one machine: two builds (this checkout's and another's) take
 * turns on the same database (the same seeded 100- and 100,000-photo libraries), in the order
 * A B B A, so both see the same minutes of a shared machine. For each: the median time of
 * sequential cold requests (`Cache-Control: no-cache`: the page is made each time; one connection,
 * nothing queued) and cold req/s at 50 connections, each after an uncounted warm-up.
 *
 *   npx tsx bench/page-build.bench.ts <other checkout root> [pglite|postgres=pglite] [seconds=5]
 */
import path from 'node:path';
import { startCluster, stopCluster } from '../scripts/pg-cluster.mjs';
import { load } from './lib/load.js';
import { prepareLibraries, type Libraries } from './lib/libraries.js';
import { buildApp, removeDir, ROOT, startServer, type RunningServer } from './lib/server.js';
import { ms } from './lib/report.js';

const PATH = '/api/photos?limit=100';
const SEQUENTIAL = 200;

async function sequential(url: string, headers: Record<string, string>, n: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(n / 2)]!;
}

async function measure(server: RunningServer, libs: Libraries, seconds: number) {
  const out: Record<string, string> = {};
  for (const [size, s] of [
    ['100', libs.small],
    ['100k', libs.big],
  ] as const) {
    const url = `${server.url}${PATH}`;
    const headers = { cookie: s.cookie, 'cache-control': 'no-cache' };
    await sequential(url, headers, 50);
    const p50 = await sequential(url, headers, SEQUENTIAL);
    await load(url, { connections: 50, seconds: 2, headers });
    const r = await load(url, { connections: 50, seconds, headers });
    out[size] = `page ${p50.toFixed(2)} ms, cold ${r.reqPerSec.toFixed(0)} req/s p99 ${ms(r.p99)}`;
  }
  return out;
}

async function main() {
  const other = path.resolve(process.argv[2] ?? '');
  const kind = process.argv[3] ?? 'pglite';
  const seconds = Number(process.argv[4] ?? 5);
  buildApp();
  const cluster = kind === 'postgres' ? await startCluster() : null;
  const env: NodeJS.ProcessEnv = cluster ? { DATABASE_URL: cluster.url } : {};
  try {
    const libs = await prepareLibraries({ databaseUrl: cluster?.url });
    await libs.server.stop();
    const builds = { this: ROOT, other };
    for (const which of ['this', 'other', 'other', 'this'] as const) {
      const server = await startServer({ dataDir: libs.server.dataDir, env, root: builds[which] });
      try {
        const load1 = (await import('node:os')).loadavg()[0]!.toFixed(1);
        console.log(which, builds[which], `load ${load1}`, await measure(server, libs, seconds));
      } finally {
        await server.stop();
      }
    }
    removeDir(libs.server.dataDir);
  } finally {
    if (cluster) stopCluster(cluster.dir);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
