import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fromRoot } from '../../lib/paths';
import type { LatencyFigures, LoadAccount, LoadPlan, LoadResult } from './load-users';
import { client, startServer, type ServerProcess } from './spawn';

export interface LoadFigures {
  users: number;
  accounts: number;
  seconds: number;
  /** Think time range (ms); [0, 0] is a closed loop. */
  thinkMs: [number, number];
  requests: number;
  rps: number;
  errors: number;
  non2xx: number;
  p50: number;
  p99: number;
  max: number;
  mean: number;
  byKind: Record<string, LatencyFigures>;
  /** Server processes' CPU (user + system) per answered request, ms; null where /proc is missing. */
  serverCpuPerRequest: number | null;
  generatorCpuPerRequest: number;
  generatorLoopDelay: { p99: number; max: number };
  samples: string[];
  /** Seconds spent registering the accounts before the measured run. */
  setupSeconds: number;
}

/** user + system CPU time of a process in ms, from /proc (Linux); null elsewhere. */
function cpuMs(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of stat (utime, stime), in clock ticks (USER_HZ, 100 on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/** Runs the generator (load-users.ts) in its own process: plan on stdin, result on stdout. */
function runGenerator(plan: LoadPlan): Promise<LoadResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', fromRoot('src/server/hardening/proc/load-users.ts')], {
    cwd: fromRoot(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  child.stdin.end(JSON.stringify(plan));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      const line = out.trim().split('\n').pop() ?? '';
      if (code === 0 && line.startsWith('{')) resolve(JSON.parse(line) as LoadResult);
      else reject(new Error(`load generator exited ${code}:\n${err.slice(-4000)}`));
    });
  });
}

/**
 * `users` simulated users (the model is described in load-users.ts: each its own
 * keep-alive connection, random start offset, seeded request mix, random think time) signed in to
 * `accounts` accounts, for `seconds` of mixed traffic against the real server process on loopback:
 * dashboard queries, recorded activities, gallery pages and thumbnails. The generator runs in its
 * own process; the accounts are registered (with their demo libraries) before the clock starts.
 */
export async function runLoad(opts: {
  users: number;
  accounts: number;
  seconds: number;
  /** Think time after each answer, uniform in [min, max] ms; [0, 0] is a closed loop (saturation). */
  thinkMs: [number, number];
  seed?: number;
  /** e.g. DATABASE_URL to run on PostgreSQL instead of the embedded PGlite. */
  env?: Record<string, string>;
  /** Another request mix (kind, weight), e.g. one kind alone; default the mix of load-users.ts. */
  mix?: LoadPlan['mix'];
  /** Profile the server (`node --cpu-prof`, written here when it stops with SIGTERM). */
  profileDir?: string;
  /**
   * Server processes on the same PostgreSQL database and data folder (PostgreSQL only, as in
   * horizontal-scale.test.ts); user u talks to process u mod n. Default 1.
   */
  processes?: number;
}): Promise<LoadFigures> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'eyevu-load-'));
  const servers: ServerProcess[] = [];
  try {
    // One after another: the first start migrates the empty database.
    for (let i = 0; i < (opts.processes ?? 1); i++) {
      servers.push(
        await startServer(
          { DATA_DIR: dataDir, LOG_LEVEL: 'error', ...opts.env },
          60_000,
          opts.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.profileDir}`] : [],
        ),
      );
    }
    const srv = servers[0]!;
    const t0 = Date.now();
    const accounts: LoadAccount[] = new Array(opts.accounts);
    // Registration hashes the password with scrypt (libuv's pool): a few at a time.
    let nextAccount = 0;
    const register = async () => {
      for (let i = nextAccount++; i < opts.accounts; i = nextAccount++) {
        const c = client(() => srv.url);
        const res = await c.req('POST', '/api/auth/register', {
          firstName: 'Load',
          lastName: `User${i}`,
          email: `load${i}@example.com`,
          password: 'secret123',
        });
        if (res.status !== 201) throw new Error(`register ${res.status}: ${await res.text()}`);
        const page = (await (await c.req('GET', '/api/photos?limit=50')).json()) as {
          items: Array<{ thumbnailUrl: string }>;
        };
        accounts[i] = { cookie: c.cookie, thumbs: page.items.map((p) => p.thumbnailUrl) };
      }
    };
    await Promise.all(Array.from({ length: 4 }, register));
    const setupSeconds = Math.round((Date.now() - t0) / 100) / 10;

    const cpu = () => {
      let sum = 0;
      for (const x of servers) {
        const ms = cpuMs(x.child.pid);
        if (ms === null) return null;
        sum += ms;
      }
      return sum;
    };
    const cpuBefore = cpu();
    const r = await runGenerator({
      urls: servers.map((x) => x.url),
      users: opts.users,
      seconds: opts.seconds,
      seed: opts.seed ?? 6,
      thinkMs: opts.thinkMs,
      timeoutMs: 10_000,
      accounts,
      mix: opts.mix,
    });
    const cpuAfter = cpu();
    return {
      users: opts.users,
      accounts: opts.accounts,
      seconds: opts.seconds,
      thinkMs: opts.thinkMs,
      requests: r.requests,
      rps: r.rps,
      errors: r.errors,
      non2xx: r.non2xx,
      p50: r.p50,
      p99: r.p99,
      max: r.max,
      mean: r.mean,
      byKind: r.byKind,
      serverCpuPerRequest:
        cpuBefore === null || cpuAfter === null
          ? null
          : Math.round(((cpuAfter - cpuBefore) / Math.max(1, r.requests)) * 1000) / 1000,
      generatorCpuPerRequest: r.generatorCpuPerRequest,
      generatorLoopDelay: r.generatorLoopDelay,
      samples: r.samples,
      setupSeconds,
    };
  } finally {
    await Promise.all(servers.map((x) => x.kill(opts.profileDir ? 'SIGTERM' : 'SIGKILL')));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Prints a run's figures: totals, then one row per request kind. */
export function printLoad(label: string, f: LoadFigures) {
  const rows = Object.entries(f.byKind).map(
    ([k, v]) => `  ${k.padEnd(16)} ${String(v.requests).padStart(6)}  ${v.p50} / ${v.p99} / ${v.max}`,
  );
  console.log(
    [
      `load ${label}: ${f.users} users on ${f.accounts} accounts, ${f.seconds} s, think ${f.thinkMs[0]}-${f.thinkMs[1]} ms`,
      `  ${f.requests} requests, ${f.rps} req/s, errors ${f.errors}, non-2xx ${f.non2xx}`,
      `  latency ms p50 / p99 / max: ${f.p50} / ${f.p99} / ${f.max} (mean ${f.mean})`,
      `  CPU ms per request: server ${f.serverCpuPerRequest ?? 'n/a'}, generator ${f.generatorCpuPerRequest}; generator loop delay p99 ${f.generatorLoopDelay.p99} ms, max ${f.generatorLoopDelay.max} ms`,
      `  setup (accounts) ${f.setupSeconds} s${f.samples.length ? `; samples: ${f.samples.join(' | ')}` : ''}`,
      '  by kind          requests  p50 / p99 / max (ms)',
      ...rows,
    ].join('\n'),
  );
}
