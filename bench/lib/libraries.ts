/**
 * A server whose database holds two users: one with 100,000 photos and one with 100 (10 demo photos
 * plus seeded rows sharing a few blobs, via scripts/seed-photos.ts). PGlite is one process at a
 * time, so the server is started to register both, stopped for seeding, and started again.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { register, waitAnalysisIdle, type Session } from './http.js';
import { printTable, type Row } from './report.js';
import {
  buildApp,
  removeDir,
  ROOT,
  serverEnv,
  startServer,
  tempDataDir,
  waitServerIdle,
  type RunningServer,
} from './server.js';

export const BIG = 100_000;
export const SMALL = 100;
/** Every new account holds the demo library. */
const DEMO = 10;

export interface Libraries {
  /** Which database the server runs on: the embedded default or a throwaway PostgreSQL cluster. */
  kind: 'pglite' | 'postgres';
  server: RunningServer;
  big: Session;
  small: Session;
  /** Name of the oldest (last in the gallery) photo of each library. */
  lastName: { big: string; small: string };
  seedSeconds: number;
}

async function seed(dataDir: string, email: string, count: number, env: NodeJS.ProcessEnv, root = ROOT) {
  await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/seed-photos.ts', email, String(count)], {
    cwd: root,
    env: { ...serverEnv(dataDir, 0), ...env },
    timeout: 600_000,
    maxBuffer: 1 << 24,
  });
}

/**
 * `databaseUrl`: on that PostgreSQL database instead of the embedded PGlite; `root`: another
 * checkout's build (before/after).
 */
export async function prepareLibraries(opts: { databaseUrl?: string; root?: string } = {}): Promise<Libraries> {
  const dataDir = tempDataDir('bench-lib');
  const env: NodeJS.ProcessEnv = opts.databaseUrl ? { DATABASE_URL: opts.databaseUrl } : {};
  let server = await startServer({ dataDir, env, root: opts.root });
  const big = await register(server.url, 'big');
  const small = await register(server.url, 'small');
  await server.stop();
  const t = performance.now();
  await seed(dataDir, big.email, BIG - DEMO, env, opts.root);
  await seed(dataDir, small.email, SMALL - DEMO, env, opts.root);
  const seedSeconds = (performance.now() - t) / 1000;
  server = await startServer({ dataDir, env, root: opts.root });
  // Sessions live in the database, so the cookies still hold; the URL changed with the port.
  const b = { ...big, url: server.url };
  const s = { ...small, url: server.url };
  // The demo photos' analyses (queued at sign-up) would otherwise take the CPU from what is measured.
  await waitAnalysisIdle(b, 300_000);
  await waitAnalysisIdle(s, 300_000);
  await waitServerIdle(server.pid);
  return {
    kind: opts.databaseUrl ? 'postgres' : 'pglite',
    server,
    big: b,
    small: s,
    lastName: { big: `Seeded photo ${BIG - DEMO}`, small: `Seeded photo ${SMALL - DEMO}` },
    seedSeconds,
  };
}

/** A benchmark run on its own: build, seed both libraries, measure, print, always clean up. */
export function runStandalone(measure: (libs: Libraries) => Promise<Row[]>, root?: string) {
  (async () => {
    if (!root) buildApp();
    const libs = await prepareLibraries({ root });
    try {
      printTable(await measure(libs));
    } finally {
      await libs.server.stop();
      removeDir(libs.server.dataDir);
    }
  })().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
