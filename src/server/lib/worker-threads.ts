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
