import { rmSync } from 'node:fs';
import {
  initCluster,
  postmasterPid,
  startPostmaster,
  startPostmasterOnFreePort,
} from '../../../../scripts/pg-cluster.mjs';

/**
 * A throwaway PostgreSQL cluster of this test's own (built with scripts/pg-cluster.mjs), which the
 * test may stop and start: always by the postmaster's process id, never by name.
 */
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
  const c = await initCluster('eyevu-pgfault-');
  const start = () => startPostmaster(c, 100);
  const pid = () => postmasterPid(c.data);
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
  await startPostmasterOnFreePort(c, 100);
  return {
    url: c.url,
    dir: c.dir,
    pid,
    stop,
    start,
    destroy: async () => {
      await stop();
      rmSync(c.dir, { recursive: true, force: true });
    },
  };
}
