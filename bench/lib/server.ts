/**
 * Starting and stopping the built server for benchmarks: a free port, a temporary DATA_DIR, the
 * process stopped by its own PID. The build runs under the shared e2e lock, because several
 * engineers share dist/.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const E2E_LOCK = '/tmp/eyevu-e2e.lock';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** `npm run build` under the shared lock. Skipped with BENCH_SKIP_BUILD=1 (when dist/ is known to be fresh). */
export function buildApp() {
  if (process.env.BENCH_SKIP_BUILD === '1' && existsSync(path.join(ROOT, 'dist/server/main.js'))) return;
  const started = Date.now();
  process.stdout.write('building (flock /tmp/eyevu-e2e.lock npm run build)... ');
  execFileSync('flock', [E2E_LOCK, 'npm', 'run', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  console.log(`${((Date.now() - started) / 1000).toFixed(0)} s`);
}

export function tempDataDir(label = 'bench') {
  return mkdtempSync(path.join(os.tmpdir(), `eyevu-${label}-`));
}

export function serverEnv(dataDir: string, port: number): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_ENV: 'production',
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    DEMO_MODE: 'true',
    MAX_UPLOAD_MB: '64',
    // One account sending thousands of requests is what the benches do on purpose (P3's cold rows
    // page far past the per-user page limit); the limits themselves are tested, not measured.
    RATE_LIMITS: 'off',
  };
}

export interface RunningServer {
  url: string;
  port: number;
  pid: number;
  dataDir: string;
  /** Stops this process (SIGTERM, then SIGKILL after 10 s); the data dir stays. */
  stop(): Promise<void>;
}

async function waitHealthy(url: string, child: ChildProcess, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      const res = await fetch(`${url}/healthz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`server at ${url} not healthy after ${timeoutMs} ms`);
}

/** Extra node flags for the server, e.g. BENCH_SERVER_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof'. */
function nodeArgs(): string[] {
  return (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
}

/**
 * Starts `node dist/server/main.js` on a free port; the caller stops it. `root`: another
 * checkout whose build to run (a before/after on one machine), this one by default.
 */
export async function startServer(
  opts: { dataDir?: string; env?: NodeJS.ProcessEnv; root?: string } = {},
): Promise<RunningServer> {
  const dataDir = opts.dataDir ?? tempDataDir();
  const port = await freePort();
  const root = opts.root ?? ROOT;
  const child = spawn(process.execPath, [...nodeArgs(), 'dist/server/main.js'], {
    cwd: root,
    env: { ...serverEnv(dataDir, port), ...opts.env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    await waitHealthy(url, child, 120_000);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, port, pid: child.pid!, dataDir, stop };
}

export function removeDir(dir: string) {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * For a benchmark run alone: builds (unless told not to), starts a server on a temporary DATA_DIR,
 * runs `fn`, stops the server and removes the data.
 */
export async function withServer<T>(fn: (server: RunningServer) => Promise<T>): Promise<T> {
  buildApp();
  const server = await startServer();
  try {
    return await fn(server);
  } finally {
    await server.stop();
    removeDir(server.dataDir);
  }
}

/** CPU time (user + system, every thread) process `pid` has used so far, in ms (Linux's 100 ticks/s). */
export function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name's closing parenthesis: utime is the 12th, stime the 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * Waits until the server has finished its start-up work: every start makes the demo library's
 * derivatives again (sharp, in the background), which would otherwise land in the first window
 * measured and cost it 2-8x the CPU per answer of later ones. Idle: under `maxMs` of CPU in each
 * of two consecutive seconds. Gives up after `timeoutMs` and says so.
 */
export async function waitServerIdle(pid: number, maxMs = 50, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let quiet = 0;
  let last = processCpuMs(pid);
  while (quiet < 2) {
    if (Date.now() > deadline) {
      console.warn(`server ${pid} still busy after ${timeoutMs / 1000} s; measuring anyway`);
      return;
    }
    await new Promise((r) => setTimeout(r, 1000));
    const now = processCpuMs(pid);
    quiet = now - last < maxMs ? quiet + 1 : 0;
    last = now;
  }
}
