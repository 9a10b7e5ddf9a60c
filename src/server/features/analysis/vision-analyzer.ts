import type { AnalysisOutcome } from './analysis.repository';
import type { PhotoAnalyzer } from './analysis.worker';
import { createVisionPool } from './vision/pool';

export interface VisionAnalyzer {
  analyze: PhotoAnalyzer;
  /** A shutdown has begun: no new photo goes to a thread. */
  stopTaking(): void;
  /** Ends the threads; one still inside its run is left to finish on its own (`leaveRunning`). */
  close(opts?: { waitMs?: number }): Promise<void>;
}

/**
 * Photos one vision thread embeds in one pass when several are waiting (InceptionV3 at 224 px:
 * ~14 % less CPU per photo at 4 than one at a time; bench/README.md).
 */
export const VISION_BATCH = 4;

/**
 * The real analyzer: a pool of vision threads, spawned on the first job (never at server start or
 * on a request); each thread loads the models then and keeps them for the life of the process.
 */
/**
 * Analysis is background work: its threads yield the cores to request handling (an upload, the
 * gallery it returns to) whenever both want them, and have them all when the server is quiet.
 */
export const VISION_THREAD_NICE = 10;

export function createVisionAnalyzer(threads: number, imageThreads?: number): VisionAnalyzer {
  const pool = createVisionPool({ threads, batch: VISION_BATCH, nice: VISION_THREAD_NICE, imageThreads });
  return {
    async analyze(image: Buffer): Promise<AnalysisOutcome> {
      const r = await pool.analyze(image);
      return { category: r.category, tags: r.tags, description: r.description, faceCount: r.faceCount };
    },
    stopTaking: () => pool.stopTaking(),
    close: (opts) => pool.close(opts),
  };
}
