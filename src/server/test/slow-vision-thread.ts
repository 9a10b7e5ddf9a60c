/**
 * A vision thread that stands for a very slow analysis: it answers `load` at once and holds every
 * other task synchronously (as ONNX Runtime's native run does) for SLOW_RUN_MS, unable to take a
 * message meanwhile, then answers it. For the pool's close (vision/pool-close.test.ts).
 */
import { parentPort } from 'node:worker_threads';
import type { ThreadReply, ThreadRequest } from '../features/analysis/vision/thread';

export const SLOW_RUN_MS = 3_000;

const port = parentPort!;
port.on('message', (m: ThreadRequest) => {
  if (m.type !== 'load') Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, SLOW_RUN_MS);
  const value = m.type === 'analyzeBatch' ? m.batch.map(() => 'slow') : 'slow';
  port.postMessage({ id: m.id, ok: true, value } satisfies ThreadReply);
});
