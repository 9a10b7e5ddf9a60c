/** autocannon (no type declarations ship with it), and a bare Fastify route as the HTTP ceiling. */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { freePort, ROOT, tempDataDir, removeDir } from './server.js';

export interface LoadResult {
  reqPerSec: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** Answers 300-399 (a 304 is what a revalidating client expects). */
  status3xx: number;
  errors: number;
  total: number;
}

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  '3xx': number;
  errors: number;
}
type Autocannon = (opts: {
  url: string;
  connections: number;
  duration: number;
  headers?: Record<string, string>;
}) => Promise<AutocannonResult>;

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export async function load(
  url: string,
  opts: { connections: number; seconds: number; headers?: Record<string, string> },
) {
  const r = await autocannon({ url, connections: opts.connections, duration: opts.seconds, headers: opts.headers });
  return {
    reqPerSec: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    status3xx: r['3xx'],
    errors: r.errors,
    total: r.requests.total,
  } satisfies LoadResult;
}

/**
 * Starts a bare Fastify process answering GET <route> with these bytes from memory (nothing else:
 * no session, no database, no schema), on a free port. Returns its URL and a stop function.
 */
export async function bareServer(bytes: Buffer, contentType: string) {
  const dir = tempDataDir('bare');
  const file = path.join(dir, 'body');
  writeFileSync(file, bytes);
  const port = await freePort();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'bench/lib/bare-server.ts', file, contentType, String(port)],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bare server exited ${code}`)));
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    stop: async () => {
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      await exited;
      removeDir(dir);
    },
  };
}
