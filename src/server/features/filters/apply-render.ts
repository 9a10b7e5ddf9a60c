import { threadId } from 'node:worker_threads';
import { APPLY_MAX_SIZE, type FilterId } from '@domain/filters';
import { applyFilter, decodeForFilters, pixelPassCount, renderFilter } from './filter-pipelines';

/*
 * A full-size apply's long side is `APPLY_MAX_SIZE` (in the domain: the Info panel gives an edit's
 * dimensions from it). A 48 MP phone photo is rendered at 4096 x 3072 (12.6 MP): the decode
 * shrinks in libvips (on load for JPEG), so memory and time follow this size, not the upload's,
 * and one apply holds at most three 4096 px RGB buffers (~150 MB worst case, square).
 */

export interface ApplyJob {
  original: Uint8Array;
  /** The original's ~1440 px preview derivative: the version's preview and thumbnail come from it. */
  preview: Uint8Array;
  filter: FilterId;
  intensity: number;
  previewSize: number;
  thumbnailSize: number;
  /** Inputs claiming more pixels than this are refused before decoding. */
  maxInputPixels: number;
}

export interface ApplyOutput {
  full: Uint8Array;
  preview: Uint8Array;
  thumbnail: Uint8Array;
  /** The worker thread that rendered it (0 is the main thread). */
  threadId: number;
  /** Per-pixel JS passes this render ran on that thread. */
  pixelPasses: number;
}

const asBuffer = (u: Uint8Array) => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

/** Renders a filter version: the bounded full-size JPEG plus WebP preview and thumbnail. */
export async function renderApply(job: ApplyJob): Promise<ApplyOutput> {
  const passesBefore = pixelPassCount();
  // The full render and the derivatives' run side by side: each spends most of its time either in
  // this thread's pixel pass or in libvips (decode, single-threaded JPEG encode), so one's libvips
  // work fills the core the other's pixel pass leaves free (sequential, they measured ~100 ms longer
  // at 12 MP).
  const [full, [preview, thumbnail]] = await Promise.all([
    applyFilter(asBuffer(job.original), job.filter, job.intensity, {
      maxSize: APPLY_MAX_SIZE,
      limitInputPixels: job.maxInputPixels,
    }),
    derivativesOf(job),
  ]);
  return { full, preview, thumbnail, threadId, pixelPasses: pixelPassCount() - passesBefore };
}

/**
 * The version's preview and thumbnail: the same filter over the original's preview (the filters
 * scale with image size), rather than a second decode of the full result.
 */
async function derivativesOf(job: ApplyJob): Promise<[Buffer, Buffer]> {
  const src = await decodeForFilters(asBuffer(job.preview), { maxSize: job.previewSize });
  const filtered = await renderFilter(src, job.filter, job.intensity);
  return Promise.all([
    filtered.clone().webp({ quality: 80, effort: 2 }).toBuffer(),
    filtered
      .clone()
      .resize(job.thumbnailSize, job.thumbnailSize, { fit: 'inside', withoutEnlargement: true })
      .webp({ quality: 75, effort: 2 })
      .toBuffer(),
  ]);
}
