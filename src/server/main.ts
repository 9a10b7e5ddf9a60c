import cluster from 'node:cluster';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig, startupWarnings, type Config } from './config';
import { closeWithin } from './http/closing';
import { openDatabase } from './db/client';
import { tuneHeapGrowth } from './lib/heap-growth';
import { superviseWorkers } from './lib/supervisor';
import { defaultEnd, endProcess } from './lib/worker-threads';

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
  const shutdown = (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    app.log.info(`${signal} received, finishing in-flight requests`);
    // Stops accepting, waits for in-flight requests (cut after SHUTDOWN_GRACE_MS), then runs
    // onClose (the analysis worker, the database). A vision thread still inside its run is left
    // running; `endProcess` then ends the process by the signal, since exiting would abort it.
    closeWithin(app).then(
      () => endProcess(signal, { ...defaultEnd, warn: (msg) => app.log.warn(msg) }),
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
 * only migrates the database (once, before any worker opens it), then keeps N workers running
 * (`superviseWorkers`) and passes a shutdown on to them.
 */
async function runPrimary(config: Config) {
  const log = (msg: string) => console.log(`[eyevu primary ${process.pid}] ${msg}`);
  const database = await openDatabase({ ...config, onWarning: (message) => log(message) });
  await database.close();
  // Workers run this file directly (not `npm start`'s wrapper, which would check the build again).
  cluster.setupPrimary({ exec: fileURLToPath(import.meta.url) });

  const workers = superviseWorkers({
    count: config.webConcurrency,
    fork: () => {
      const w = cluster.fork();
      return {
        pid: w.process.pid,
        onListening: (listener) => w.once('listening', listener),
        onExit: (listener) => w.once('exit', listener),
        kill: (signal) => w.process.kill(signal),
      };
    },
    log,
    error: (msg) => console.error(`[eyevu primary] ${msg}`),
    exit: (code) => process.exit(code),
  });
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log(`${signal} received, stopping ${config.webConcurrency} server processes`);
    // Each finishes its in-flight requests (its own SIGTERM handler), then exits.
    workers.stop();
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));

  workers.start();
  log(`${config.webConcurrency} server processes on port ${config.port} (PostgreSQL)`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
