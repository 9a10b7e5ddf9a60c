/**
 * Entry point of a filter thread (node:worker_threads): renders filter applies so their
 * per-pixel JS pass never runs on the HTTP event loop. sharp is loaded by the main thread first
 * (the photos pipeline), which keeps libvips loaded for the life of the process.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { keepImageThreads } from '../../lib/image-threads';
import { renderApply, type ApplyJob, type ApplyOutput } from './apply-render';
import type { FilterThreadOptions } from './filter-pool';

export type FilterThreadRequest = { id: number; job: ApplyJob };
export type FilterThreadReply = { id: number; ok: true; value: ApplyOutput } | { id: number; ok: false; error: string };

if (!parentPort) throw new Error('filter thread: must run inside a worker thread');
keepImageThreads(((workerData ?? {}) as FilterThreadOptions).imageThreads);
const port = parentPort;

port.on('message', (m: FilterThreadRequest) => {
  renderApply(m.job).then(
    (value) => {
      // Own copies are transferred: sharp's buffers may be views into a larger allocation.
      const own = { ...value, full: new Uint8Array(value.full), preview: new Uint8Array(value.preview) };
      const thumbnail = new Uint8Array(value.thumbnail);
      port.postMessage({ id: m.id, ok: true, value: { ...own, thumbnail } } satisfies FilterThreadReply, [
        own.full.buffer,
        own.preview.buffer,
        thumbnail.buffer,
      ]);
    },
    (err: unknown) =>
      port.postMessage({
        id: m.id,
        ok: false,
        error: err instanceof Error ? err.message : String(err),
      } satisfies FilterThreadReply),
  );
});
