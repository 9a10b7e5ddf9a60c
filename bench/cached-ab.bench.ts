/**
 * P3's cached and 304 rows, before/after on one machine: two builds (this checkout's and another's)
 * take turns on the same database (the same seeded 100- and 100,000-photo libraries), in the order
 * A B B A, so both see the same minutes of a shared machine. In each turn, for each library:
 * cached (plain repeat) and 304 (If-None-Match) req/s and p99 at 50 connections, and the bare route
 * serving the same bytes right after (the ratio's ceiling), each after an uncounted warm-up. Each
 * also gives the server process's CPU time per answer (all its threads, PGlite's included; not a
 * PostgreSQL server's), which a busy shared machine disturbs far less than req/s.
 *
 *   npx tsx bench/cached-ab.bench.ts <other checkout root> [pglite|postgres=pglite] [seconds=5]
 */
import { runAbba } from './lib/ab.js';
import { bareServer, load, type LoadResult } from './lib/load.js';
import type { Libraries } from './lib/libraries.js';
import { processCpuMs as cpuMs, type RunningServer } from './lib/server.js';
import { ms } from './lib/report.js';

const PATH = '/api/photos?limit=100';
const CONNECTIONS = 50;
const WARMUP_SECONDS = 2;

async function measured(
  url: string,
  headers: Record<string, string>,
  seconds: number,
  pid: number,
): Promise<LoadResult & { cpuUsPerAnswer: number }> {
  await load(url, { connections: CONNECTIONS, seconds: WARMUP_SECONDS, headers });
  const before = cpuMs(pid);
  const r = await load(url, { connections: CONNECTIONS, seconds, headers });
  return { ...r, cpuUsPerAnswer: ((cpuMs(pid) - before) * 1000) / r.total };
}

async function measure(server: RunningServer, libs: Libraries, seconds: number) {
  const out: Record<string, string> = {};
  for (const [size, s] of [
    ['100', libs.small],
    ['100k', libs.big],
  ] as const) {
    const url = `${server.url}${PATH}`;
    const first = await fetch(url, { headers: { cookie: s.cookie } });
    if (!first.ok) throw new Error(`GET ${url}: ${first.status}`);
    const etag = first.headers.get('etag')!;
    const bytes = Buffer.from(await first.arrayBuffer());
    const cached = await measured(url, { cookie: s.cookie }, seconds, server.pid);
    const notModified = await measured(url, { cookie: s.cookie, 'if-none-match': etag }, seconds, server.pid);
    const bare = await bareServer(bytes, first.headers.get('content-type') ?? 'application/json');
    let ceiling: LoadResult & { cpuUsPerAnswer: number };
    try {
      ceiling = await measured(`${bare.url}${PATH}`, {}, seconds, bare.pid);
    } finally {
      await bare.stop();
    }
    const row = (r: LoadResult & { cpuUsPerAnswer: number }) =>
      `${r.reqPerSec.toFixed(0)} req/s (${(r.reqPerSec / ceiling.reqPerSec).toFixed(2)}x) p99 ${ms(r.p99)} ` +
      `CPU ${r.cpuUsPerAnswer.toFixed(0)} us/answer`;
    out[size] =
      `cached ${row(cached)}; 304 ${row(notModified)}; bare ${ceiling.reqPerSec.toFixed(0)} req/s p99 ${ms(ceiling.p99)} ` +
      `CPU ${ceiling.cpuUsPerAnswer.toFixed(0)} us/answer` +
      (notModified.total !== notModified.status3xx ? `; ${notModified.total - notModified.status3xx} not 304` : '');
  }
  return out;
}

runAbba(measure);
