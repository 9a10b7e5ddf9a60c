/**
 * Entry point of the HEIC thread (node:worker_threads): HEVC decoding in WebAssembly takes tens to
 * hundreds of milliseconds of CPU per photo, which on the HTTP thread would hold every request.
 */
import { parentPort } from 'node:worker_threads';
import { decodeHeicHere, HeicRefusal, type HeicPixels } from './heic-decode';

export type HeicThreadRequest = { id: number; bytes: Uint8Array; maxPixels: number };
export type HeicThreadReply =
  | { id: number; ok: true; pixels: HeicPixels }
  | { id: number; ok: false; error: string; refused: boolean; tooLarge: boolean };

if (!parentPort) throw new Error('HEIC thread: must run inside a worker thread');
const port = parentPort;

port.on('message', (m: HeicThreadRequest) => {
  decodeHeicHere(m.bytes, m.maxPixels).then(
    (pixels) => {
      // The frame's buffer is moved, not copied, unless it is a view into a larger allocation.
      const whole = pixels.data.byteOffset === 0 && pixels.data.byteLength === pixels.data.buffer.byteLength;
      const data = whole ? pixels.data : new Uint8Array(pixels.data);
      port.postMessage({ id: m.id, ok: true, pixels: { ...pixels, data } } satisfies HeicThreadReply, [
        data.buffer as ArrayBuffer,
      ]);
    },
    (err: unknown) =>
      port.postMessage({
        id: m.id,
        ok: false,
        error: err instanceof Error ? err.message : String(err),
        refused: err instanceof HeicRefusal,
        tooLarge: err instanceof HeicRefusal && err.tooLarge,
      } satisfies HeicThreadReply),
  );
});
