import type { ResourceLimits, Worker } from 'node:worker_threads';
import { leaveRunning, spawnThread } from '../../../lib/worker-threads';
import {
  decodeForModels,
  type DecodedInputs,
  type VisionEngine,
  type VisionEngineOptions,
  type VisionResult,
} from './engine';
import type { ThreadData, ThreadReply, ThreadRequest } from './thread';

/**
 * Several vision threads behind the VisionEngine interface. tfjs' WASM backend is single-threaded
 * under Node, so one thread per core is how analysis uses the machine; it also keeps inference
 * (hundreds of ms of synchronous WASM per photo) off the HTTP event loop.
 */
export interface VisionPoolOptions extends VisionEngineOptions {
  threads: number;
  /**
   * Photos waiting for analysis that one thread takes at once (default 1): the embedding network
   * then runs once over all of them, which costs less CPU per photo than one pass each.
   */
  batch?: number;
  /** Memory caps per thread; a thread that exceeds them dies and is replaced for the next photo. */
  resourceLimits?: ResourceLimits;
  /**
   * The threads' nice value (Linux, where it is per thread): the server runs analysis below
   * request handling. Unset, they run at the process's own priority (tests, benchmarks).
   */
  nice?: number;
  /** libvips threads (config.imageThreads), set again in each thread after it loads sharp. */
  imageThreads?: number;
  /** Test-only: the threads' entry in place of ./thread.ts (a thread that stands for a slow run). */
  entry?: { source: string; bundled: string };
}

type Task = { type: 'load' } | { type: 'analyze' | 'embed'; inputs: DecodedInputs };

interface Pending {
  task: Task;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

interface Slot {
  worker?: Worker;
  /** What the thread is working on; `batch` holds the photos of a batched analysis, in order. */
  current?: Pending & { id: number; batch?: Pending[] };
  /** Per-thread tasks (loading) that must run on this slot, before the shared queue. */
  own: Pending[];
  /** Called once `current` is over (closing waits for it). */
  idle?: () => void;
}

/**
 * How long a shutdown waits for the photos in the threads, from the moment it begins (alongside
 * the requests' SHUTDOWN_GRACE_MS); those still running then are given back to the queue.
 */
export const VISION_CLOSE_WAIT_MS = 15_000;

const THREAD_ENTRY = { source: './thread.ts', bundled: './vision-thread.js' };

export function createVisionPool(o: VisionPoolOptions): VisionEngine & {
  readonly threads: number;
  readonly running: number;
  stopTaking(): void;
  close(opts?: { waitMs?: number }): Promise<void>;
} {
  const { threads, resourceLimits, nice, imageThreads, batch = 1, entry = THREAD_ENTRY, ...options } = o;
  if (!Number.isInteger(threads) || threads < 1) throw new Error('vision pool: threads must be a positive integer');
  if (!Number.isInteger(batch) || batch < 1) throw new Error('vision pool: batch must be a positive integer');
  const slots: Slot[] = Array.from({ length: threads }, () => ({ own: [] }));
  const queue: Pending[] = [];
  let nextId = 1;
  let loadMs: number | undefined;
  let closed = false;
  /** Set when a shutdown begins: what is queued stays queued, no new task goes to a thread. */
  let paused = false;

  function settled(slot: Slot) {
    const idle = slot.idle;
    slot.idle = undefined;
    idle?.();
  }

  /** Resolves once the slot's running task is over, or after `ms`. */
  function whenIdle(slot: Slot, ms: number): Promise<void> {
    if (!slot.current) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      slot.idle = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  function stopped(slot: Slot, why: string) {
    const cur = slot.current;
    slot.worker = undefined;
    slot.current = undefined;
    cur?.reject(new Error(`vision thread stopped: ${why}`));
    settled(slot);
    // A fresh thread is spawned for whatever is still queued.
    pump();
  }

  function ensureWorker(slot: Slot): Worker {
    if (slot.worker) return slot.worker;
    const w = spawnThread(import.meta.url, entry, {
      workerData: { options, nice, imageThreads } satisfies ThreadData,
      resourceLimits,
    });
    w.unref();
    w.on('message', (r: ThreadReply) => {
      const cur = slot.current;
      if (!cur || cur.id !== r.id) return;
      slot.current = undefined;
      w.unref();
      if (r.ok) {
        if (r.loadMs !== undefined) loadMs = Math.max(loadMs ?? 0, r.loadMs);
        if (cur.batch) {
          const values = r.value as unknown[];
          cur.batch.forEach((p, i) => p.resolve(values[i]));
        } else cur.resolve(r.value);
      } else cur.reject(new Error(r.error));
      settled(slot);
      pump();
    });
    w.on('error', (err: Error) => {
      if (slot.worker === w) stopped(slot, err.message);
    });
    w.on('exit', (code) => {
      if (slot.worker === w) stopped(slot, `exit code ${code}`);
    });
    slot.worker = w;
    return w;
  }

  function pump() {
    if (closed || paused) return;
    for (const slot of slots) {
      if (slot.current) continue;
      const next = slot.own.shift() ?? queue.shift();
      if (!next) continue;
      const w = ensureWorker(slot);
      const id = nextId++;
      // Referenced only while working, so an idle pool never keeps a process alive.
      w.ref();
      if (next.task.type === 'analyze' && batch > 1 && queue[0]?.task.type === 'analyze') {
        const group = [next];
        while (group.length < batch && queue[0]?.task.type === 'analyze') group.push(queue.shift()!);
        const inputs = group.map((p) => (p.task as { inputs: DecodedInputs }).inputs);
        // One pending stands for the group: a thread that dies fails every photo in it.
        slot.current = {
          task: next.task,
          id,
          batch: group,
          resolve: () => undefined,
          reject: (e) => group.forEach((p) => p.reject(e)),
        };
        const msg: ThreadRequest = { id, type: 'analyzeBatch', batch: inputs };
        w.postMessage(
          msg,
          inputs.flatMap((x) => [x.embed.data.buffer, x.detect.data.buffer, x.thumb.data.buffer]) as ArrayBuffer[],
        );
        continue;
      }
      slot.current = { ...next, id };
      const msg: ThreadRequest = next.task.type === 'load' ? { id, type: 'load' } : { id, ...next.task };
      const transfer =
        next.task.type === 'load'
          ? []
          : [
              next.task.inputs.embed.data.buffer,
              next.task.inputs.detect.data.buffer,
              next.task.inputs.thumb.data.buffer,
            ];
      w.postMessage(msg, transfer as ArrayBuffer[]);
    }
  }

  function submit<T>(task: Task, slot?: Slot): Promise<T> {
    if (closed) return Promise.reject(new Error('vision pool is closed'));
    return new Promise<T>((resolve, reject) => {
      const p: Pending = { task, resolve: resolve as (v: unknown) => void, reject };
      (slot ? slot.own : queue).push(p);
      pump();
    });
  }

  /** Own, transferable copies: sharp's buffers may be views into a larger shared allocation. */
  async function decode(image: Buffer): Promise<DecodedInputs> {
    const d = await decodeForModels(image);
    const own = (x: DecodedInputs['embed']) => ({ ...x, data: new Uint8Array(x.data) });
    return { embed: own(d.embed), detect: own(d.detect), thumb: own(d.thumb) };
  }

  let loading: Promise<void> | undefined;
  return {
    threads,
    get loadMs() {
      return loadMs;
    },
    load() {
      loading ??= Promise.all(slots.map((s) => submit<void>({ type: 'load' }, s))).then(() => undefined);
      loading.catch(() => {
        loading = undefined;
      });
      return loading;
    },
    async analyze(image) {
      return submit<VisionResult>({ type: 'analyze', inputs: await decode(image) });
    },
    async embed(image) {
      return submit<Float32Array>({ type: 'embed', inputs: await decode(image) });
    },
    /** Tasks in the threads now (a photo batch counts once). */
    get running() {
      return slots.filter((s) => s.current).length;
    },
    /**
     * A shutdown has begun: no task goes to a thread from now on. What is queued waits (refused
     * at `close`): refused now, its photo's failure would be recorded as a spent attempt before the
     * analysis worker gives it back.
     */
    stopTaking() {
      paused = true;
    },
    /**
     * Refuses what is queued, lets each thread finish the task it is running (at most `waitMs`,
     * VISION_CLOSE_WAIT_MS by default), then ends the idle threads. A thread still running is
     * refused and left to finish on its own (`leaveRunning`): terminated inside ONNX Runtime's
     * native run, it aborted the whole process ("terminate called after throwing an instance of
     * 'Napi::Error'"), so a server stopping mid-analysis crashed instead of exiting.
     */
    async close(opts: { waitMs?: number } = {}) {
      closed = true;
      const refused = () => new Error('vision pool is closed');
      for (const p of queue.splice(0)) p.reject(refused());
      for (const s of slots) for (const p of s.own.splice(0)) p.reject(refused());
      await Promise.all(slots.map((s) => whenIdle(s, opts.waitMs ?? VISION_CLOSE_WAIT_MS)));
      await Promise.all(
        slots.map(async (s) => {
          const w = s.worker;
          const busy = s.current;
          s.worker = undefined;
          s.current = undefined;
          busy?.reject(refused());
          if (!w) return;
          if (busy) leaveRunning(w);
          else await w.terminate();
        }),
      );
    },
  };
}
