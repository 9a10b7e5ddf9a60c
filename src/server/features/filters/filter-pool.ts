import type { Worker } from 'node:worker_threads';
import { closeThreadSlots, spawnThread } from '../../lib/worker-threads';
import type { ApplyJob, ApplyOutput } from './apply-render';
import type { FilterThreadReply, FilterThreadRequest } from './filter-thread';

/**
 * Filter applies in worker threads. The recipes walk every pixel in JS (filter-pipelines.ts);
 * on the main thread a 12 MP apply held every other request for hundreds of milliseconds. Jobs
 * wait in a queue and load their inputs only when a thread takes them, so memory is bounded by
 * the thread count, not by how many applies are waiting.
 */
export interface FilterPool {
  /** `load` reads the job's inputs; it runs only once a thread is free. */
  apply(load: () => Promise<ApplyJob>): Promise<ApplyOutput>;
  stats(): { threads: number; running: number; queued: number; completed: number };
  close(): Promise<void>;
}

/** One thread: the 2-core target keeps the other core for the event loop and libvips. */
export const DEFAULT_FILTER_THREADS = 1;

interface Pending {
  load: () => Promise<ApplyJob>;
  resolve: (v: ApplyOutput) => void;
  reject: (e: Error) => void;
}
interface Slot {
  worker?: Worker;
  current?: Pending & { id: number };
}

/** What a filter thread is started with (its `workerData`). */
export interface FilterThreadOptions {
  /** libvips threads (config.imageThreads); unset keeps sharp's default. */
  imageThreads?: number;
}

const spawn = (workerData: FilterThreadOptions) =>
  spawnThread(import.meta.url, { source: './filter-thread.ts', bundled: './filter-thread.js' }, { workerData });

/** The bytes as an ArrayBuffer the thread can take over (a copy only when they share one). */
function transferable(u: Uint8Array): Uint8Array {
  return u.byteOffset === 0 && u.byteLength === u.buffer.byteLength && u.buffer instanceof ArrayBuffer
    ? u
    : new Uint8Array(u);
}

export function createFilterPool(threads = DEFAULT_FILTER_THREADS, thread: FilterThreadOptions = {}): FilterPool {
  if (!Number.isInteger(threads) || threads < 1) throw new Error('filter pool: threads must be a positive integer');
  const slots: Slot[] = Array.from({ length: threads }, () => ({}));
  const queue: Pending[] = [];
  let nextId = 1;
  let completed = 0;
  let closed = false;

  function finish(slot: Slot) {
    slot.current = undefined;
    slot.worker?.unref();
    pump();
  }

  function ensureWorker(slot: Slot): Worker {
    if (slot.worker) return slot.worker;
    const w = spawn(thread);
    w.unref();
    w.on('message', (r: FilterThreadReply) => {
      const cur = slot.current;
      if (!cur || cur.id !== r.id) return;
      completed += 1;
      if (r.ok) cur.resolve(r.value);
      else cur.reject(new Error(r.error));
      finish(slot);
    });
    const stopped = (why: string) => {
      if (slot.worker !== w) return;
      slot.worker = undefined;
      slot.current?.reject(new Error(`filter thread stopped: ${why}`));
      // A fresh thread is spawned for whatever is still queued.
      finish(slot);
    };
    w.on('error', (err: Error) => stopped(err.message));
    w.on('exit', (code) => stopped(`exit code ${code}`));
    slot.worker = w;
    return w;
  }

  function pump() {
    if (closed) return;
    for (const slot of slots) {
      if (slot.current) continue;
      const next = queue.shift();
      if (!next) return;
      const id = nextId++;
      slot.current = { ...next, id };
      next.load().then(
        (job) => {
          if (slot.current?.id !== id) return;
          const w = ensureWorker(slot);
          // Referenced only while working, so an idle pool never keeps a process alive.
          w.ref();
          const original = transferable(job.original);
          const preview = transferable(job.preview);
          const msg: FilterThreadRequest = { id, job: { ...job, original, preview } };
          const list = original.buffer === preview.buffer ? [original.buffer] : [original.buffer, preview.buffer];
          w.postMessage(msg, list as ArrayBuffer[]);
        },
        (err: unknown) => {
          if (slot.current?.id !== id) return;
          next.reject(err instanceof Error ? err : new Error(String(err)));
          finish(slot);
        },
      );
    }
  }

  return {
    apply(load) {
      if (closed) return Promise.reject(new Error('filter pool is closed'));
      return new Promise<ApplyOutput>((resolve, reject) => {
        queue.push({ load, resolve, reject });
        pump();
      });
    },
    stats: () => ({
      threads,
      running: slots.filter((s) => s.current).length,
      queued: queue.length,
      completed,
    }),
    async close() {
      closed = true;
      await closeThreadSlots(queue, slots, 'filter pool is closed');
    },
  };
}
