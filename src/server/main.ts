import cluster, { type Worker } from 'node:cluster';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig, startupWarnings, type Config } from './config';
import { openDatabase } from './db/client';
import { tuneHeapGrowth } from './lib/heap-growth';

/** A worker that dies after it was serving is replaced; one that dies again this soon waits longer. */
const RESTART_FIRST_MS = 1_000;
const RESTART_MAX_MS = 30_000;
const STABLE_AFTER_MS = 60_000;

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  if (config.webConcurrency > 1 && cluster.isPrimary) await runPrimary(config);
  else await runServer(config);
}

/** One server process: the app, listening (in a cluster worker, on the port the primary shares). */
async function runServer(config: Config) {
  // Before the app allocates: its heap's growth decides how often an upload pays for a full mark.
  tuneHeapGrowth();
  const { buildApp } = await import('./app');
  const app = await buildApp(config);
  // Requests would only fail one by one: a supervisor restarting the process is the way back.
  void app.ctx.database.lost?.then((err) => {
    app.log.fatal({ err }, 'database lost, exiting');
    process.exit(1);
  });
  for (const warning of startupWarnings(config)) app.log.warn(warning);
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info(`${signal} received, finishing in-flight requests`);
    // app.close() stops accepting, waits for in-flight requests, then runs onClose (database).
    app.close().then(
      () => process.exit(0),
      (err) => {
        app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  await app.listen({ port: config.port, host: config.host });
  const worker = cluster.isWorker ? `, process ${cluster.worker!.id} of ${config.webConcurrency}` : '';
  app.log.info(`Eyevu on http://localhost:${config.port} (${app.ctx.database.kind}${worker})`);
}

/**
 * WEB_CONCURRENCY=N: N server processes sharing one port (node:cluster hands out connections). They
 * share nothing but PostgreSQL and the blob store, like servers on separate machines. The primary
 * only migrates the database (once, before any worker opens it: N processes migrating at once
 * would race), then keeps N workers running and passes a shutdown on to them.
 */
async function runPrimary(config: Config) {
  const log = (msg: string) => console.log(`[eyevu primary ${process.pid}] ${msg}`);
  const database = await openDatabase(config);
  await database.close();
  // Workers run this file directly (not `npm start`'s wrapper, which would check the build again).
  cluster.setupPrimary({ exec: fileURLToPath(import.meta.url) });

  let stopping = false;
  const started = new Map<Worker, number>();
  const serving = new Set<Worker>();
  let restartMs = RESTART_FIRST_MS;

  const fork = () => {
    const w = cluster.fork();
    started.set(w, Date.now());
    w.once('listening', () => serving.add(w));
  };

  cluster.on('exit', (w, code, signal) => {
    const wasServing = serving.delete(w);
    const age = Date.now() - (started.get(w) ?? 0);
    started.delete(w);
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit();
      return;
    }
    if (!wasServing) {
      // It never listened: a bad setting or an unreachable database or bucket, which a restart repeats.
      console.error(`[eyevu primary] a server process failed to start (${signal ?? code}); stopping`);
      stopping = true;
      for (const other of Object.values(cluster.workers ?? {})) other?.process.kill('SIGTERM');
      process.exitCode = 1;
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit();
      return;
    }
    restartMs = age > STABLE_AFTER_MS ? RESTART_FIRST_MS : Math.min(restartMs * 2, RESTART_MAX_MS);
    log(`server process ${w.process.pid} exited (${signal ?? code}); starting another in ${restartMs} ms`);
    setTimeout(() => !stopping && fork(), restartMs);
  });

  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log(`${signal} received, stopping ${config.webConcurrency} server processes`);
    const workers = Object.values(cluster.workers ?? {});
    if (workers.length === 0) process.exit();
    // Each finishes its in-flight requests (its own SIGTERM handler), then exits.
    for (const w of workers) w?.process.kill('SIGTERM');
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));

  for (let i = 0; i < config.webConcurrency; i++) fork();
  log(`${config.webConcurrency} server processes on port ${config.port} (PostgreSQL)`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
