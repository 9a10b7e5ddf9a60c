/**
 * P3 API throughput: `GET /api/photos?limit=100` with a session cookie, 50 connections, 10 s
 * (autocannon), against a bare Fastify route on the same machine returning the same bytes from
 * memory, run right after. Measured on a 100-photo library and on a 100,000-photo library.
 * Targets: req/s ratio >= 0.5; p99 <= 50 ms.
 *
 *   npx tsx bench/api.bench.ts [seconds=10]
 */
import { fmtRatio, isMain, ms, type Row } from './lib/report.js';
import { bareServer, load } from './lib/load.js';
import { runStandalone, type Libraries } from './lib/libraries.js';
import type { Session } from './lib/http.js';

const TARGET_RATIO = 0.5;
const TARGET_P99 = 50;
const CONNECTIONS = 50;

async function one(s: Session, label: string, seconds: number): Promise<Row[]> {
  const url = `${s.url}/api/photos?limit=100`;
  const first = await fetch(url, { headers: { cookie: s.cookie } });
  if (!first.ok) throw new Error(`GET ${url}: ${first.status}`);
  const bytes = Buffer.from(await first.arrayBuffer());
  const app = await load(url, { connections: CONNECTIONS, seconds, headers: { cookie: s.cookie } });
  const bare = await bareServer(bytes, first.headers.get('content-type') ?? 'application/json');
  let ceiling;
  try {
    ceiling = await load(`${bare.url}/api/photos?limit=100`, { connections: CONNECTIONS, seconds });
  } finally {
    await bare.stop();
  }
  const ratio = app.reqPerSec / ceiling.reqPerSec;
  const bad = app.non2xx + app.errors;
  const note = `${(bytes.length / 1024).toFixed(0)} KB per answer; app p50 ${ms(app.p50)}; bare p99 ${ms(ceiling.p99)}${bad ? `; ${bad} non-2xx/errors` : ''}`;
  return [
    {
      id: 'P3',
      measure: `GET /api/photos?limit=100, ${label}: req/s (${CONNECTIONS} conns, ${seconds} s)`,
      value: `${app.reqPerSec.toFixed(0)} req/s`,
      ceiling: `${ceiling.reqPerSec.toFixed(0)} req/s bare Fastify`,
      ratio: fmtRatio(ratio),
      target: `ratio >= ${TARGET_RATIO}`,
      met: ratio >= TARGET_RATIO && bad === 0,
      note,
    },
    {
      id: 'P3',
      measure: `GET /api/photos?limit=100, ${label}: p99 latency`,
      value: ms(app.p99),
      ceiling: `${ms(ceiling.p99)} bare`,
      ratio: '',
      target: `<= ${TARGET_P99} ms`,
      met: app.p99 <= TARGET_P99,
    },
  ];
}

export async function runApi(libs: Libraries, seconds = 10): Promise<Row[]> {
  return [...(await one(libs.small, '100 photos', seconds)), ...(await one(libs.big, '100,000 photos', seconds))];
}

if (isMain(import.meta.url)) {
  const seconds = Number(process.argv[2] ?? 10);
  runStandalone((libs) => runApi(libs, seconds));
}
