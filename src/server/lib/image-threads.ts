import sharp from 'sharp';

/**
 * Sets libvips' thread count (config.imageThreads) again in a thread that has just loaded sharp.
 * The count is one per process, and sharp's load sets it to sharp's own default (1 on glibc
 * without jemalloc) in whichever thread loads it: the vision threads, started on the first
 * analysis, left every later upload's derivatives on one libvips thread. Unset keeps the default.
 */
export function keepImageThreads(threads: number | undefined) {
  if (threads) sharp.concurrency(threads);
}
