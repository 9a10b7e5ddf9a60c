// A throwaway PostgreSQL cluster on a free loopback port, for tests. Uses only Node built-ins so
// .ci/run can call it before `npm ci`.
//   node scripts/pg-cluster.mjs start   -> prints `export TEST_DATABASE_URL=...` and `export PG_TEST_DIR=...`
//   node scripts/pg-cluster.mjs stop DIR
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export function findPgBin() {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return null;
  const versions = readdirSync(base).sort((a, b) => Number(b) - Number(a));
  for (const v of versions) {
    const bin = path.join(base, v, 'bin');
    if (existsSync(path.join(bin, 'initdb'))) return bin;
  }
  return null;
}

/** A port nothing listens on at this moment, on loopback. */
export const freePort = () =>
  new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/** initdb refuses to run as root, so the cluster belongs to the postgres user when we are root. */
function asPostgres(cmd, args) {
  const isRoot = process.getuid?.() === 0;
  const [file, argv] = isRoot ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
  execFileSync(file, argv, { stdio: ['ignore', 'ignore', 'inherit'] });
}

/** A new, stopped cluster in a fresh temporary folder, owned by postgres when we are root. */
export async function initCluster(prefix = 'eyevu-pg-') {
  const bin = findPgBin();
  if (!bin) throw new Error('PostgreSQL server binaries not found: install them with `apt-get install postgresql`');
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  chmodSync(dir, 0o777);
  const data = path.join(dir, 'data');
  const port = await freePort();
  if (process.getuid?.() === 0) execFileSync('chown', ['postgres', dir]);
  asPostgres(path.join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  return { bin, dir, data, port, url: `postgres://postgres@127.0.0.1:${port}/postgres` };
}

/** Starts (or restarts) a cluster made by initCluster, on loopback only, and waits until it is up. */
export function startPostmaster(c, maxConnections = 200) {
  asPostgres(path.join(c.bin, 'pg_ctl'), [
    '-D',
    c.data,
    '-l',
    path.join(c.dir, 'server.log'),
    '-w',
    'start',
    '-o',
    `-p ${c.port} -k ${c.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=${maxConnections}`,
  ]);
}

/**
 * The first start of a cluster made by initCluster. Its port was free when initCluster picked it,
 * seconds before (initdb ran in between), so another process may hold it now: then the start fails
 * with "Address already in use", and it is tried again on a new port (c.port and c.url change).
 */
export async function startPostmasterOnFreePort(c, maxConnections = 200, attempts = 3) {
  for (let i = 1; ; i++) {
    try {
      startPostmaster(c, maxConnections);
      return;
    } catch (err) {
      const log = path.join(c.dir, 'server.log');
      const taken = existsSync(log) && /Address already in use|could not bind/i.test(readFileSync(log, 'utf8'));
      if (!taken || i >= attempts) throw err;
      c.port = await freePort();
      c.url = `postgres://postgres@127.0.0.1:${c.port}/postgres`;
    }
  }
}

/** The running postmaster's process id, or null. */
export function postmasterPid(dataDir) {
  const f = path.join(dataDir, 'postmaster.pid');
  return existsSync(f) ? Number(readFileSync(f, 'utf8').split('\n')[0]) : null;
}

export async function startCluster() {
  const c = await initCluster();
  await startPostmasterOnFreePort(c);
  return { url: c.url, dir: c.dir, pid: postmasterPid(c.data) };
}

/** Stops the postmaster by its process id (never by name) and removes the cluster. */
export function stopCluster(dir) {
  const pid = postmasterPid(path.join(dir, 'data'));
  if (pid) {
    try {
      process.kill(pid, 'SIGINT');
    } catch {
      // already gone
    }
    const until = Date.now() + 15_000;
    while (Date.now() < until) {
      try {
        process.kill(pid, 0);
      } catch {
        break;
      }
      execFileSync('sleep', ['0.2']);
    }
  }
  rmSync(dir, { recursive: true, force: true });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [cmd, arg] = process.argv.slice(2);
  if (cmd === 'start') {
    const c = await startCluster();
    console.log(`export TEST_DATABASE_URL='${c.url}'\nexport PG_TEST_DIR='${c.dir}'\nexport PG_TEST_PID='${c.pid}'`);
  } else if (cmd === 'stop' && arg) {
    stopCluster(arg);
  } else {
    console.error('usage: pg-cluster.mjs start | stop DIR');
    process.exit(2);
  }
}
