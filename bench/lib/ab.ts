import os from 'node:os';
import path from 'node:path';
import { startCluster, stopCluster } from '../../scripts/pg-cluster.mjs';
import { prepareLibraries, type Libraries } from './libraries.js';
import { buildApp, removeDir, ROOT, startServer, waitServerIdle, type RunningServer } from './server.js';

/**
 * Before/after on one machine: this checkout's build and another's (`argv[2]`) take turns in the
 * order A B B A on one seeded database (`argv[3]`: pglite or postgres), so both see the same minutes
 * of a shared machine. `measure` runs against each turn's server for `argv[4]` seconds (5).
 */
export function runAbba(measure: (server: RunningServer, libs: Libraries, seconds: number) => Promise<unknown>) {
  const main = async () => {
    const other = path.resolve(process.argv[2] ?? '');
    const kind = process.argv[3] ?? 'pglite';
    const seconds = Number(process.argv[4] ?? 5);
    buildApp();
    const cluster = kind === 'postgres' ? await startCluster() : null;
    const env: NodeJS.ProcessEnv = cluster ? { DATABASE_URL: cluster.url } : {};
    try {
      const libs = await prepareLibraries({ databaseUrl: cluster?.url });
      await libs.server.stop();
      const builds = { this: ROOT, other };
      for (const which of ['this', 'other', 'other', 'this'] as const) {
        const server = await startServer({ dataDir: libs.server.dataDir, env, root: builds[which] });
        try {
          await waitServerIdle(server.pid);
          const before = os.loadavg()[0]!.toFixed(1);
          const result = await measure(server, libs, seconds);
          console.log(which, builds[which], `load ${before} -> ${os.loadavg()[0]!.toFixed(1)}`, result);
        } finally {
          await server.stop();
        }
      }
      removeDir(libs.server.dataDir);
    } finally {
      if (cluster) stopCluster(cluster.dir);
    }
  };
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
