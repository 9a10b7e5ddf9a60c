import type { Worker } from 'node:worker_threads';
import { isMainThread } from 'node:worker_threads';
import sharp, { type Sharp } from 'sharp';
import { decodeHeicHere, HeicRefusal, type HeicPixels } from './heic-decode';
import type { HeicThreadReply, HeicThreadRequest } from './heic-thread';
import { spawnThread } from './worker-threads';

/**
 * HEIC (HEVC-coded HEIF, the iPhone's format) decoded in WebAssembly. The libvips inside sharp's
 * prebuilt binaries reads the HEIF container (size, EXIF) but has no HEVC decoder, so the pixels
 * come from libheif compiled to WASM (`libheif-js`, the module and its .wasm bundled in the npm
 * package: nothing is fetched at run time). Used only when sharp cannot decode the file.
 *
 * On the HTTP thread the decoding runs in one dedicated worker thread, one photo at a time: the
 * event loop stays free, and memory is bounded by one frame in the WASM heap (4 bytes a pixel).
 * Code already in a worker thread (the filter apply) decodes in place.
 */

/** A decoded HEIC: interleaved RGBA, displayed orientation (the container's rotation applied). */
export interface DecodedHeic {
  data: Buffer;
  width: number;
  height: number;
  channels: 4;
}

/** The decoder's own refusal; `tooLarge` when the image is over the pixel limit. */
export class HeicDecodeError extends Error {
  constructor(
    message: string,
    readonly tooLarge = false,
  ) {
    super(message);
  }
}

/**
 * The decoder thread itself failed (it would not start, or kept stopping): the server's fault, not
 * the photo's, so it must not be answered as an unreadable image.
 */
export class HeicThreadError extends Error {}

/**
 * How many threads may stop under one photo before it fails. A start can fail for reasons that
 * pass (a worker's boot losing a race for memory or for the loader on a loaded machine), so each
 * new thread waits a little longer than the last.
 */
export const HEIC_THREAD_ATTEMPTS = 3;
const RESTART_DELAY_MS = 100;
/**
 * A photo still decoding after this is refused and its thread stopped: photos are decoded one at a
 * time, so a slow one held every other user's HEIC uploads behind it. A 100 MP photo takes seconds.
 */
export const HEIC_DECODE_LIMIT_MS = 60_000;
export const HEIC_TOO_SLOW = 'This HEIC photo takes too long to decode.';

interface Job {
  bytes: Uint8Array;
  maxPixels: number;
  /** Threads that have stopped under it so far. */
  stops: number;
  resolve: (p: HeicPixels) => void;
  reject: (e: Error) => void;
}

interface Pending extends Job {
  id: number;
}

let thread: Worker | undefined;
let current: Pending | undefined;
const waiting: Job[] = [];
let nextId = 1;
let decoded = 0;
/** Set while a photo waits out the pause before its next thread. */
let restartTimer: NodeJS.Timeout | undefined;
/** Set while a photo is decoding: its time limit. */
let limitTimer: NodeJS.Timeout | undefined;

/** How the HEIC thread is doing, for tests and health output. */
export const heicThreadStats = () => ({ running: current ? 1 : 0, queued: waiting.length, decoded });

function startThread(): Worker {
  const w = spawnThread(import.meta.url, { source: './heic-thread.ts', bundled: './heic-thread.js' });
  w.on('message', (r: HeicThreadReply) => {
    const cur = current;
    if (!cur || cur.id !== r.id) return;
    current = undefined;
    clearTimeout(limitTimer);
    decoded += 1;
    if (r.ok) cur.resolve(r.pixels);
    else cur.reject(r.refused ? new HeicDecodeError(r.error, r.tooLarge) : new Error(r.error));
    next();
  });
  const stopped = (why: string) => {
    if (thread !== w) return;
    thread = undefined;
    clearTimeout(limitTimer);
    // A thread that stops under a photo (one that failed to start, or the WASM heap out of
    // memory) gives the photo to a fresh thread, after a pause; the last allowed stop fails only
    // that photo.
    const cur = current;
    current = undefined;
    if (!cur) return next();
    const stops = cur.stops + 1;
    if (stops >= HEIC_THREAD_ATTEMPTS) {
      cur.reject(new HeicThreadError(`HEIC thread stopped ${stops} times: ${why}`));
      return next();
    }
    waiting.unshift({ ...cur, stops });
    restartTimer = setTimeout(
      () => {
        restartTimer = undefined;
        next();
      },
      RESTART_DELAY_MS * 2 ** (stops - 1),
    );
  };
  w.on('error', (err: Error) => stopped(err.message));
  w.on('exit', (code) => stopped(`exit code ${code}`));
  return w;
}

function next() {
  if (current || restartTimer) return;
  const job = waiting.shift();
  if (!job) {
    // An idle thread never keeps the process alive.
    thread?.unref();
    return;
  }
  thread ??= startThread();
  thread.ref();
  current = { ...job, id: nextId++ };
  // A copy the thread can own: the caller keeps its bytes (they are stored as the original).
  const bytes = new Uint8Array(job.bytes);
  thread.postMessage({ id: current.id, bytes, maxPixels: job.maxPixels } satisfies HeicThreadRequest, [bytes.buffer]);
  const id = current.id;
  limitTimer = setTimeout(() => overtime(id), HEIC_DECODE_LIMIT_MS);
}

/** The photo decoding is over its time: refused, and its thread stopped (a fresh one takes the next). */
function overtime(id: number) {
  const cur = current;
  if (!cur || cur.id !== id) return;
  const w = thread;
  current = undefined;
  thread = undefined;
  cur.reject(new HeicDecodeError(HEIC_TOO_SLOW));
  void w?.terminate();
  next();
}

function inThread(bytes: Uint8Array, maxPixels: number): Promise<HeicPixels> {
  return new Promise((resolve, reject) => {
    waiting.push({ bytes, maxPixels, stops: 0, resolve, reject });
    next();
  });
}

/**
 * Decodes the primary image of a HEIC. Its size is read from the container first and checked
 * against `maxPixels` before a single pixel is decoded, so a decompression bomb costs a header read.
 */
export async function decodeHeic(bytes: Uint8Array, maxPixels: number): Promise<DecodedHeic> {
  let pixels: HeicPixels;
  if (isMainThread) pixels = await inThread(bytes, maxPixels);
  else {
    pixels = await decodeHeicHere(bytes, maxPixels).catch((err: unknown) => {
      throw err instanceof HeicRefusal ? new HeicDecodeError(err.message, err.tooLarge) : err;
    });
  }
  const data = Buffer.from(pixels.data.buffer, pixels.data.byteOffset, pixels.data.byteLength);
  return { data, width: pixels.width, height: pixels.height, channels: 4 };
}

/** The running HEIC thread, if any (tests stop it as a crash would). */
export const heicThreadWorker = () => thread;

/** Stops the HEIC thread (tests and shutdown); a later decode starts a new one. */
export async function closeHeicThread() {
  const w = thread;
  thread = undefined;
  clearTimeout(restartTimer);
  restartTimer = undefined;
  clearTimeout(limitTimer);
  for (const job of waiting.splice(0)) job.reject(new HeicThreadError('HEIC decoder is closed'));
  current?.reject(new HeicThreadError('HEIC decoder is closed'));
  current = undefined;
  if (w) await w.terminate();
}

/** A sharp pipeline over a decoded HEIC's pixels. */
export function sharpFromHeic(decoded: DecodedHeic): Sharp {
  return sharp(decoded.data, { raw: { width: decoded.width, height: decoded.height, channels: decoded.channels } });
}

/** True for sharp's error when its libheif has no decoder for the file's codec (HEVC here). */
export function isMissingCodecError(err: unknown): boolean {
  const m = err instanceof Error ? err.message : String(err);
  return /compression format has not been built in|no decoder|hevc|libde265/i.test(m);
}
