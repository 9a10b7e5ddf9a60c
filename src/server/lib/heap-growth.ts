import v8 from 'node:v8';

/**
 * How far V8 lets the old generation grow past what survived the last full collection before it
 * starts the next one, in percent. Left to itself, V8 derives the factor from how fast the
 * program allocates against how fast it collects; a server that idles between requests looks
 * like a slow allocator, so V8 picks its minimum (1.1x). With ~31 MB surviving, that meant a full
 * mark of the whole heap every ~3 MB promoted: one per photo upload (11 in a 7-upload bench run),
 * each ~30-50 ms of CPU on V8's helper threads, taken from the cores the upload's libvips
 * threads decode on. At 2x the heap runs ~30 MB larger and marks once per several uploads
 * (3 in the same run). Measured in bench/README.md (`ing5`).
 */
export const HEAP_GROWING_PERCENT = 100;

const FLAG = '--heap-growing-percent';

/**
 * Sets the growth above for this process: every isolate, so the worker threads started later too
 * (theirs are collected mostly for external memory and were measured barely moved). Node leaves
 * flags set after start-up to V8; this one is read at every full collection, which `--trace-gc`
 * confirmed (3 full marks of the main isolate instead of 14 in an 8-upload bench run), so no
 * re-exec is needed. A `--heap-growing-percent` given to node explicitly wins. Answers whether it
 * was set here.
 */
export function tuneHeapGrowth(
  execArgv: readonly string[] = process.execArgv,
  setFlags: (flags: string) => void = v8.setFlagsFromString,
): boolean {
  if (execArgv.some((a) => a === FLAG || a.startsWith(`${FLAG}=`) || a.startsWith('--heap_growing_percent')))
    return false;
  setFlags(`${FLAG}=${HEAP_GROWING_PERCENT}`);
  return true;
}
