/**
 * Entry point of a vision thread (node:worker_threads). Each thread owns one tfjs WASM runtime and
 * one copy of the models: WASM inference is single-threaded in Node, so parallelism across cores
 * comes from several threads. Pixels arrive already decoded (sharp runs in the parent's libuv pool).
 */
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { keepImageThreads } from '../../../lib/image-threads';
import { createVisionCore, type DecodedInputs, type VisionEngineOptions } from './engine';

export type ThreadRequest =
  | { id: number; type: 'load' }
  | { id: number; type: 'analyze' | 'embed'; inputs: DecodedInputs }
  | { id: number; type: 'analyzeBatch'; batch: DecodedInputs[] };

export type ThreadReply =
  { id: number; ok: true; value: unknown; loadMs?: number } | { id: number; ok: false; error: string };

export interface ThreadData {
  options?: VisionEngineOptions;
  nice?: number;
  /** libvips threads (config.imageThreads): the engine loads sharp here, which resets the count. */
  imageThreads?: number;
}

if (!parentPort) throw new Error('vision thread: must run inside a worker thread');
const port = parentPort;
const data = (workerData as ThreadData | null) ?? {};
keepImageThreads(data.imageThreads);
// On Linux a nice value is per thread, so this lowers only this thread; elsewhere it would lower
// the whole server, so it is left alone.
if (data.nice !== undefined && process.platform === 'linux') {
  try {
    os.setPriority(data.nice);
  } catch {
    // Not permitted here: analysis then runs at the server's own priority.
  }
}
const core = createVisionCore(data.options ?? {});

port.on('message', (m: ThreadRequest) => {
  const work =
    m.type === 'load'
      ? core.load()
      : m.type === 'embed'
        ? core.embedDecoded(m.inputs)
        : m.type === 'analyzeBatch'
          ? core.analyzeDecodedBatch(m.batch)
          : core.analyzeDecoded(m.inputs);
  work.then(
    (value: unknown) => port.postMessage({ id: m.id, ok: true, value, loadMs: core.loadMs } satisfies ThreadReply),
    (err: unknown) =>
      port.postMessage({
        id: m.id,
        ok: false,
        error: err instanceof Error ? err.message : String(err),
      } satisfies ThreadReply),
  );
});
