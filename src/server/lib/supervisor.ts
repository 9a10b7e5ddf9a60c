/** A worker that dies after it was serving is replaced; one that dies again this soon waits longer. */
export const RESTART_FIRST_MS = 1_000;
export const RESTART_MAX_MS = 30_000;
export const STABLE_AFTER_MS = 60_000;

/** One server process as the supervisor sees it (a node:cluster worker in main.ts). */
export interface SupervisedProcess {
  readonly pid: number | undefined;
  /** Called once the process serves (its server is listening). */
  onListening(listener: () => void): void;
  onExit(listener: (code: number | null, signal: string | null) => void): void;
  kill(signal: NodeJS.Signals): void;
}

/**
 * Keeps `count` server processes running (WEB_CONCURRENCY). A process that exits while serving is
 * replaced after a pause that grows while they keep dying soon after starting. Until one has ever
 * served, a process that fails to start stops them all: a bad setting, or a database or bucket that
 * is not there, which starting again would only repeat. After that, a replacement that fails to
 * start is tried again in the same way: the others are still serving, and what it failed on (the
 * database or the bucket for a moment, as when a restart of either is what made a process crash) is
 * passing. Stopping then turned one crashed process into the whole service down.
 */
export function superviseWorkers(opts: {
  count: number;
  fork(): SupervisedProcess;
  log(message: string): void;
  error(message: string): void;
  /** Called once nothing is left running after a stop; 1 when it stopped because a start failed. */
  exit(code: number): void;
  now?: () => number;
}) {
  const now = opts.now ?? Date.now;
  const live = new Set<SupervisedProcess>();
  let stopping = false;
  let exitCode = 0;
  let everServed = false;
  let restartMs = RESTART_FIRST_MS;

  const stopAll = () => {
    for (const w of live) w.kill('SIGTERM');
    if (live.size === 0) opts.exit(exitCode);
  };

  const fork = () => {
    const w = opts.fork();
    const started = now();
    let serving = false;
    live.add(w);
    w.onListening(() => {
      serving = true;
      everServed = true;
    });
    w.onExit((code, signal) => {
      live.delete(w);
      if (stopping) {
        if (live.size === 0) opts.exit(exitCode);
        return;
      }
      const why = signal ?? code;
      if (!serving && !everServed) {
        opts.error(`a server process failed to start (${why}); stopping`);
        stopping = true;
        exitCode = 1;
        stopAll();
        return;
      }
      restartMs =
        serving && now() - started > STABLE_AFTER_MS ? RESTART_FIRST_MS : Math.min(restartMs * 2, RESTART_MAX_MS);
      opts.log(
        serving
          ? `server process ${w.pid} exited (${why}); starting another in ${restartMs} ms`
          : `a replacement server process failed to start (${why}); trying again in ${restartMs} ms`,
      );
      setTimeout(() => !stopping && fork(), restartMs);
    });
  };

  return {
    start() {
      for (let i = 0; i < opts.count; i++) fork();
    },
    /** Passes a stop on to every process (each finishes its requests in flight), then exits. */
    stop() {
      if (stopping) return;
      stopping = true;
      stopAll();
    },
    get running() {
      return live.size;
    },
  };
}
