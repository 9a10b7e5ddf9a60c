import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Starts a worker thread from the caller's folder. The server bundle ships each thread as its own
 * file beside main.js (`bundled`); from source (tests, scripts) the `.ts` entry needs tsx's loader,
 * which a thread does not inherit, so it is registered first.
 */
export function spawnThread(
  callerUrl: string,
  entry: { source: string; bundled: string },
  options: WorkerOptions = {},
): Worker {
  if (callerUrl.endsWith('.ts')) {
    const target = new URL(entry.source, callerUrl).href;
    const boot = `import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(target)}); })`;
    return new Worker(boot, { ...options, eval: true });
  }
  return new Worker(new URL(entry.bundled, callerUrl), options);
}

/**
 * Threads a pool's close left running because they were inside native code (ONNX Runtime's
 * synchronous run): terminating such a thread aborts the whole process when its run returns
 * ("terminate called after throwing an instance of 'Napi::Error'", exit 134), and so does
 * `process.exit`, which terminates every thread still running and waits for it.
 */
const leftRunning = new Set<Worker>();

/** Leaves a busy thread to finish on its own: it no longer keeps the process alive. */
export function leaveRunning(worker: Worker): void {
  worker.unref();
  leftRunning.add(worker);
  worker.once('exit', () => leftRunning.delete(worker));
}

export function threadsLeftRunning(): number {
  return leftRunning.size;
}

/**
 * Ends the process once its close is done. With a thread still inside native code, the signal that
 * asked for the stop is raised again with its handlers gone: the process ends by that signal's
 * default action at once (exit status 128 + signal, as with no handler at all), its threads with
 * it, where `process.exit` would have aborted it. The database is closed by then. As a container's
 * PID 1 (no `--init`) the kernel ignores a signal whose action is the default, so the process
 * would run on until its loop emptied, and then terminate the thread as `process.exit` does: there
 * it waits for those threads to end instead (the supervisor's SIGKILL bounds the wait).
 */
export interface ProcessEnd {
  exit: (code: number) => void;
  raise: (signal: NodeJS.Signals) => void;
  warn: (msg: string) => void;
  pid: number;
}

export const defaultEnd: ProcessEnd = {
  exit: (code) => process.exit(code),
  raise: (signal) => {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  },
  warn: (msg) => console.warn(msg),
  pid: process.pid,
};

export function endProcess(signal: NodeJS.Signals, io: ProcessEnd = defaultEnd): void {
  const busy = threadsLeftRunning();
  if (busy === 0) return io.exit(0);
  if (io.pid === 1) {
    io.warn(`${busy} thread(s) still inside native code after the close: waiting for them to end`);
    // The threads were unref'd: this keeps the process alive until they have ended.
    const keep = setInterval(() => undefined, 60_000);
    void Promise.all([...leftRunning].map((w) => new Promise((ended) => w.once('exit', ended)))).then(() => {
      clearInterval(keep);
      io.exit(0);
    });
    return;
  }
  io.warn(`${busy} thread(s) still inside native code after the close: ending the process by ${signal}`);
  io.raise(signal);
}

interface Rejectable {
  reject: (e: Error) => void;
}

/**
 * Shuts a pool of threads down: queued and running tasks are refused with `message`, then every
 * thread is terminated.
 */
export async function closeThreadSlots(
  queue: Rejectable[],
  slots: Array<{ worker?: Worker; current?: Rejectable }>,
  message: string,
) {
  for (const p of queue.splice(0)) p.reject(new Error(message));
  await Promise.all(
    slots.map(async (s) => {
      const w = s.worker;
      s.worker = undefined;
      s.current?.reject(new Error(message));
      s.current = undefined;
      if (w) await w.terminate();
    }),
  );
}
