/**
 * The load generator of the load test, run as its own process (`node --import tsx load-users.ts`,
 * started by load-scenario.ts) so its timers, sockets and parsing never share an event loop with
 * the test runner. Reads one JSON `LoadPlan` on stdin, writes one JSON `LoadResult` line on stdout.
 *
 * The user model: a simulated user is one client (a phone with Eyevu open) signed in to one of the
 * plan's accounts (several users may share an account, like several devices), with its own
 * keep-alive connection. It waits a random start offset (uniform over one think time, so the users
 * do not fire in lockstep), then loops until the deadline: picks its next request from the mix
 * below with its own seeded random stream, sends it, waits for the whole answer, then "thinks" for
 * a random time drawn uniformly from `thinkMs` before the next request. A slow answer delays that
 * user's next request, as it would a person's. Every latency (send to last byte) is recorded and
 * the percentiles are computed exactly from all of them (nearest rank). With `thinkMs` [0, 0] the
 * users form a closed loop (each sends again the moment it is answered): saturation, not users.
 *
 * The mix (weights out of 9, the dashboard, gallery and ad-break traffic of the app):
 * stats, rewards, app status, subscription, activity list, gallery first page: 1 each;
 * thumbnails: 2; the ad break: 1. An ad break is the account's, as on the server (one running per
 * account, so the devices of one account take turns): with none running the device starts one
 * (`POST /api/ad-breaks`, Instagram, kind 'ad-break'); once the server's `endsAt` has passed it
 * records it (`POST /api/activities` with the ad-break id as Idempotency-Key, a memory game, kind
 * 'record-activity'); while the account's ad still plays it reads the activity list instead
 * (kind 'activities'), as the dashboard would. Runs shorter than an ad record nothing.
 */
import http from 'node:http';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { rng, type Rng } from './rng';

export interface LoadAccount {
  cookie: string;
  thumbs: string[];
}

export interface LoadPlan {
  /** Server base URLs: user u talks to urls[u mod n] (several processes on one database). */
  urls: string[];
  users: number;
  seconds: number;
  seed: number;
  /** Think time after each answer: uniform in [min, max] ms. [0, 0]: closed loop. */
  thinkMs: [number, number];
  timeoutMs: number;
  accounts: LoadAccount[];
  /** Another mix (kind, weight), e.g. one kind alone to measure its cost; default LOAD_MIX. */
  mix?: ReadonlyArray<readonly [kind: string, weight: number]>;
}

export interface LatencyFigures {
  requests: number;
  p50: number;
  p99: number;
  max: number;
}

export interface LoadResult extends LatencyFigures {
  /** Wall time from the first request to the last answer (s). */
  elapsed: number;
  rps: number;
  mean: number;
  /** Network errors and timeouts (no HTTP answer). */
  errors: number;
  non2xx: number;
  /** A few error messages and non-2xx answers, for failure messages. */
  samples: string[];
  byKind: Record<string, LatencyFigures>;
  /** The generator's own event-loop delay (ms): if high, its latencies would be inflated. */
  generatorLoopDelay: { p99: number; max: number };
  /** CPU the generator used (ms per request). */
  generatorCpuPerRequest: number;
}

export const LOAD_MIX: ReadonlyArray<readonly [kind: string, weight: number]> = [
  ['stats', 1],
  ['rewards', 1],
  ['app-status', 1],
  ['subscription', 1],
  ['activities', 1],
  ['gallery', 1],
  ['thumbnail', 2],
  ['record-activity', 1],
];

interface Req {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  headers?: Record<string, string>;
  /** Keep the answer's body (the ad break's id and end). */
  read?: boolean;
}

/** The account's ad break as its devices know it: being started, running until `endsAtMs`, or being recorded. */
interface AccountAdBreak {
  id: string | null;
  endsAtMs: number;
  busy: boolean;
}

const AD_BREAK_APP = 'Instagram';

function pickKind(r: Rng, mix: ReadonlyArray<readonly [string, number]>, total: number): string {
  let x = r.next() * total;
  for (const [kind, w] of mix) {
    if (x < w) return kind;
    x -= w;
  }
  return mix[mix.length - 1]![0];
}

function requestFor(kind: string, a: LoadAccount, r: Rng): Req {
  switch (kind) {
    case 'stats':
      return { method: 'GET', path: '/api/stats?utcOffsetMinutes=0' };
    case 'rewards':
      return { method: 'GET', path: '/api/rewards' };
    case 'app-status':
      return { method: 'GET', path: '/api/app-status' };
    case 'subscription':
      return { method: 'GET', path: '/api/subscription' };
    case 'activities':
      return { method: 'GET', path: '/api/activities' };
    case 'gallery':
      return { method: 'GET', path: '/api/photos?limit=50' };
    default:
      return { method: 'GET', path: r.pick(a.thumbs) };
  }
}

/**
 * The ad-break step of one device (see the header): what to send, under which kind, and what to do
 * with the answer.
 */
function adBreakStep(
  breaks: Map<LoadAccount, AccountAdBreak>,
  a: LoadAccount,
): { kind: string; q: Req; done?: (status: number, body: string) => void } {
  const current = breaks.get(a);
  if (!current) {
    breaks.set(a, { id: null, endsAtMs: Infinity, busy: true });
    return {
      kind: 'ad-break',
      q: {
        method: 'POST',
        path: '/api/ad-breaks',
        body: JSON.stringify({ app: AD_BREAK_APP }),
        headers: { 'content-type': 'application/json' },
        read: true,
      },
      done: (status, body) => {
        if (status !== 201) return void breaks.delete(a);
        const started = JSON.parse(body) as { id: string; endsAt: string };
        breaks.set(a, { id: started.id, endsAtMs: Date.parse(started.endsAt), busy: false });
      },
    };
  }
  if (!current.busy && current.id && Date.now() >= current.endsAtMs) {
    current.busy = true;
    return {
      kind: 'record-activity',
      q: {
        method: 'POST',
        path: '/api/activities',
        body: JSON.stringify({
          app: AD_BREAK_APP,
          adDuration: 15,
          gameData: { gameType: 'memory', score: 60, completed: true },
        }),
        headers: { 'content-type': 'application/json', 'idempotency-key': current.id },
      },
      done: () => void breaks.delete(a),
    };
  }
  return { kind: 'activities', q: requestFor('activities', a, rng(0)) };
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

const round1 = (x: number) => Math.round(x * 10) / 10;

function figures(latencies: number[]): LatencyFigures {
  const s = Float64Array.from(latencies).sort();
  const arr = Array.from(s);
  return {
    requests: arr.length,
    p50: round1(percentile(arr, 50)),
    p99: round1(percentile(arr, 99)),
    max: round1(arr.length ? arr[arr.length - 1]! : 0),
  };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function runUsers(plan: LoadPlan): Promise<LoadResult> {
  const [thinkMin, thinkMax] = plan.thinkMs;
  const think = (r: Rng) => thinkMin + r.next() * (thinkMax - thinkMin);
  const mix = plan.mix ?? LOAD_MIX;
  const totalWeight = mix.reduce((s, [, w]) => s + w, 0);
  const all: number[] = [];
  const byKind = new Map<string, number[]>();
  let errors = 0;
  let non2xx = 0;
  const samples: string[] = [];
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  const deadline = start + plan.seconds * 1000;
  let lastAnswer = start;

  const breaks = new Map<LoadAccount, AccountAdBreak>();

  const send = (target: URL, agent: http.Agent, cookie: string, q: Req) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const headers: Record<string, string> = { cookie, ...q.headers };
      if (q.body !== undefined) headers['content-length'] = String(Buffer.byteLength(q.body));
      const req = http.request(
        { host: target.hostname, port: target.port, method: q.method, path: q.path, agent, headers },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => q.read && chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
          res.on('error', reject);
        },
      );
      req.setTimeout(plan.timeoutMs, () => req.destroy(new Error(`timeout after ${plan.timeoutMs} ms`)));
      req.on('error', reject);
      req.end(q.body);
    });

  const user = async (u: number) => {
    const r = rng(plan.seed * 100_003 + u);
    const account = plan.accounts[u % plan.accounts.length]!;
    const target = new URL(plan.urls[u % plan.urls.length]!);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      await sleep(r.next() * thinkMax);
      while (performance.now() < deadline) {
        const picked = pickKind(r, mix, totalWeight);
        const { kind, q, done } =
          picked === 'record-activity'
            ? adBreakStep(breaks, account)
            : { kind: picked, q: requestFor(picked, account, r) };
        const t0 = performance.now();
        try {
          const answer = await send(target, agent, account.cookie, q);
          const status = answer.status;
          const ms = performance.now() - t0;
          all.push(ms);
          let list = byKind.get(kind);
          if (!list) byKind.set(kind, (list = []));
          list.push(ms);
          if (status < 200 || status > 299) {
            non2xx++;
            if (samples.length < 5) samples.push(`${q.method} ${q.path} -> ${status}`);
          }
          done?.(status, answer.body);
        } catch (err) {
          errors++;
          if (samples.length < 5) samples.push(`${q.method} ${q.path}: ${(err as Error).message}`);
          done?.(0, '');
        }
        lastAnswer = performance.now();
        const wait = think(r);
        if (wait > 0 && performance.now() + wait < deadline) await sleep(wait);
        else if (wait > 0) break;
      }
    } finally {
      agent.destroy();
    }
  };

  await Promise.all(Array.from({ length: plan.users }, (_, u) => user(u)));
  loop.disable();
  const cpu = process.cpuUsage(cpu0);
  const elapsed = (lastAnswer - start) / 1000;
  const total = figures(all);
  return {
    ...total,
    elapsed: round1(elapsed),
    rps: Math.round(all.length / plan.seconds),
    mean: round1(all.reduce((s, x) => s + x, 0) / Math.max(1, all.length)),
    errors,
    non2xx,
    samples,
    byKind: Object.fromEntries([...byKind].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, figures(v)])),
    generatorLoopDelay: { p99: round1(loop.percentile(99) / 1e6), max: round1(loop.max / 1e6) },
    generatorCpuPerRequest: Math.round(((cpu.user + cpu.system) / 1000 / Math.max(1, all.length)) * 1000) / 1000,
  };
}

// Run as a process: plan on stdin, result on stdout.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  let input = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (d: string) => (input += d));
  process.stdin.on('end', () => {
    runUsers(JSON.parse(input) as LoadPlan).then(
      (result) => process.stdout.write(JSON.stringify(result) + '\n', () => process.exit(0)),
      (err: unknown) => {
        process.stderr.write(String((err as Error)?.stack ?? err) + '\n');
        process.exit(1);
      },
    );
  });
}
