import type { Worker } from 'node:worker_threads';
import { expect, vi } from 'vitest';
import { heicThreadStats, heicThreadWorker } from '../lib/heic';

/**
 * Stops the HEIC thread `times` times while it holds a photo, as a crash would: each time it waits
 * for a thread that is not the one it stopped last to be working (an idle thread left by an earlier
 * decode holds nothing, and stopping it would count for no photo).
 */
export async function stopHeicThreadsUnderPhoto(times: number) {
  let last: Worker | undefined;
  for (let i = 0; i < times; i++) {
    let w: Worker | undefined;
    await vi.waitFor(
      () => {
        w = heicThreadWorker();
        expect(w !== undefined && w !== last && heicThreadStats().running === 1).toBe(true);
      },
      { timeout: 60_000, interval: 10 },
    );
    last = w;
    await w!.terminate();
  }
}
