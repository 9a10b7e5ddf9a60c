/**
 * P3's page build, before/after on one machine: two builds (this checkout's and another's) take
 * turns on the same database (the same seeded 100- and 100,000-photo libraries), in the order
 * A B B A, so both see the same minutes of a shared machine. For each: the median time of
 * sequential cold requests (the first page's photos through the uncached keyset path, lib/cold.ts:
 * the page is made each time; one connection, nothing queued) and cold req/s at 50 connections,
 * each after an uncounted warm-up.
 *
 *   npx tsx bench/page-build.bench.ts <other checkout root> [pglite|postgres=pglite] [seconds=5]
 */
import { runAbba } from './lib/ab.js';
import { coldPath } from './lib/cold.js';
import { load } from './lib/load.js';
import type { Libraries } from './lib/libraries.js';
import type { RunningServer } from './lib/server.js';
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
    const url = `${server.url}${coldPath(PATH)}`;
    const headers = { cookie: s.cookie };
    await sequential(url, headers, 50);
    const p50 = await sequential(url, headers, SEQUENTIAL);
    await load(url, { connections: 50, seconds: 2, headers });
    const r = await load(url, { connections: 50, seconds, headers });
    out[size] = `page ${p50.toFixed(2)} ms, cold ${r.reqPerSec.toFixed(0)} req/s p99 ${ms(r.p99)}`;
  }
  return out;
}

runAbba(measure);
