import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * A throwaway PostgreSQL cluster of this test's own (as scripts/pg-cluster.mjs), which the test
 * may stop and start: always by the postmaster's process id, never by name.
 */
export function findPgBin(): string | null {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return null;
  for (const v of readdirSync(base).sort((a, b) => Number(b) - Number(a))) {
    const bin = path.join(base, v, 'bin');
    if (existsSync(path.join(bin, 'initdb'))) return bin;
  }
  return null;
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

function asPostgres(cmd: string, args: string[]) {
  const isRoot = process.getuid?.() === 0;
  const [file, argv] = isRoot ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
  execFileSync(file, argv, { stdio: ['ignore', 'ignore', 'inherit'] });
}

export interface OwnCluster {
  url: string;
  dir: string;
  pid(): number | null;
  /** Fast shutdown (SIGINT to the postmaster): connections are terminated with 57P01. */
  stop(): Promise<void>;
  start(): void;
  destroy(): Promise<void>;
}

export async function startOwnCluster(): Promise<OwnCluster> {
  const bin = findPgBin();
  if (!bin) throw new Error('PostgreSQL server binaries not found: apt-get install postgresql');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'eyevu-pgfault-'));
  chmodSync(dir, 0o777);
  const data = path.join(dir, 'data');
  const port = await freePort();
  if (process.getuid?.() === 0) execFileSync('chown', ['postgres', dir]);
  asPostgres(path.join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const start = () =>
    asPostgres(path.join(bin, 'pg_ctl'), [
      '-D',
      data,
      '-l',
      path.join(dir, 'server.log'),
      '-w',
      'start',
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`,
    ]);
  const pid = () => {
    const f = path.join(data, 'postmaster.pid');
    return existsSync(f) ? Number(readFileSync(f, 'utf8').split('\n')[0]) : null;
  };
  const alive = (p: number) => {
    try {
      process.kill(p, 0);
      return true;
    } catch {
      return false;
    }
  };
  const stop = async () => {
    const p = pid();
    if (!p) return;
    try {
      process.kill(p, 'SIGINT');
    } catch {
      return;
    }
    const until = Date.now() + 20_000;
    while (alive(p) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  };
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    dir,
    pid,
    stop,
    start,
    destroy: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
