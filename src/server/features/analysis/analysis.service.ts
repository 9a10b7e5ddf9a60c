import type { AfterAnswer, AppContext } from '../../context';
import { coalesced } from '../../lib/coalesce';
import { syncSmartAlbumsIn } from '../albums/index';
import { ANALYZE_AFTER_JOBS, createAnalysisRepository, type AnalysisRepository } from './analysis.repository';
import { createAnalysisWorker, type AnalysisWorker, type PhotoAnalyzer } from './analysis.worker';
import { createVisionAnalyzer, VISION_BATCH } from './vision-analyzer';
import { VISION_CLOSE_WAIT_MS } from './vision/pool';

/** Longest a stream of uploads holds analysis back before it claims jobs anyway. */
export const ANALYSIS_MAX_YIELD_MS = 5000;

export interface AnalysisServiceOptions {
  /** Tests replace the vision models with a double; production uses the real engine. */
  analyze?: PhotoAnalyzer;
  /** How long a claimed job is held before another worker may take it (crash tests shorten it). */
  lockMs?: number;
  /** How long closing waits for the jobs in flight before giving them back (VISION_CLOSE_WAIT_MS). */
  closeWaitMs?: number;
  /** The longest the worker holds back for a busy server (ANALYSIS_MAX_YIELD_MS; tests lengthen it). */
  maxYieldMs?: number;
  log?: (msg: string, err: unknown) => void;
}

/**
 * The analysis queue as the routes see it: queue a user's unanalysed photos, report progress, and
 * run the worker that feeds the vision threads. The routes stay HTTP-only; SQL stays in the
 * repository; the threads are started here, on the first job.
 */
export interface AnalysisService {
  /**
   * Queues the user's unanalysed photos. Work that need not hold the answer (the queue's
   * statistics after a large library) is handed to `afterAnswer`.
   */
  analyzeAll(
    userId: string,
    afterAnswer?: AfterAnswer,
  ): Promise<{ queued: number; status: Awaited<ReturnType<AnalysisRepository['status']>> }>;
  status(userId: string): ReturnType<AnalysisRepository['status']>;
  /** Queues what a crash left without a job, then starts claiming jobs (only when the server runs workers). */
  start(): Promise<void>;
  /**
   * A shutdown has begun (called before the requests in flight finish): no job is claimed and no
   * photo goes to a vision thread from now on, and the wait for the photos in the threads starts.
   */
  beginStop(): void;
  readonly worker: AnalysisWorker;
  readonly repo: AnalysisRepository;
}

export function createAnalysisService(ctx: AppContext, opts: AnalysisServiceOptions = {}): AnalysisService {
  const repo = createAnalysisRepository(ctx.db);
  const log = opts.log ?? (() => undefined);
  /** Work started after an answer and not yet done: closing waits for it. */
  const background = new Set<Promise<void>>();
  /** Runs `work`, logging its failure; the promise settles when it is done and never rejects. */
  function inBackground(work: () => Promise<void>): Promise<void> {
    const done: Promise<void> = work()
      .catch((err: unknown) => log('analysis queue: background work failed', err))
      .finally(() => background.delete(done));
    background.add(done);
    return done;
  }
  let analyze = opts.analyze;
  let vision: ReturnType<typeof createVisionAnalyzer> | undefined;
  if (!analyze) {
    vision = createVisionAnalyzer(ctx.config.visionThreads, ctx.config.imageThreads);
    analyze = vision.analyze;
  }
  const worker = createAnalysisWorker({
    repo,
    blobs: ctx.blobs,
    analyze,
    // A batch per thread plus one more: the next photo is read and decoded while a batch is in inference.
    concurrency: opts.analyze ? undefined : ctx.config.visionThreads * (VISION_BATCH + 1),
    lockMs: opts.lockMs,
    // Inference takes both cores: it waits while requests are in flight here and for the grace
    // after an upload's answer (the uploader's gallery refresh); turning quiet wakes it.
    yieldWhile: () => !ctx.activity.quiet(),
    maxYieldMs: opts.maxYieldMs ?? ANALYSIS_MAX_YIELD_MS,
    // The analysed photo's memberships alone (a few rows whatever the library's size), committed
    // with its result: the status never says done before the albums show it.
    onSettled: (tx, userId, photoId) => syncSmartAlbumsIn(tx, userId, [photoId]),
    log,
  });
  ctx.activity.onQuiet(() => worker.notify());
  /**
   * The worker's bounded stop, begun when the shutdown begins rather than after the requests'
   * grace (SHUTDOWN_GRACE_MS): waited one after the other, the two bounds and the threads' own
   * wait came to 40 s, past Kubernetes' 30 s. Jobs still in the threads when it ends are given
   * back to the queue (no attempt spent, nothing they finish later written).
   */
  let stopping: Promise<void> | undefined;
  const beginStop = () => {
    vision?.stopTaking();
    stopping ??= worker.stop({ waitMs: opts.closeWaitMs ?? VISION_CLOSE_WAIT_MS });
  };
  // A statistics renewal still running first (the database closes after this). Then the worker's
  // stop, then the threads: each idle one ended, one still inside its run (its jobs given back
  // already) left to finish on its own, since ending it there aborted the process.
  ctx.onClose.push(async () => {
    await Promise.all([...background]);
    beginStop();
    await stopping;
    await vision?.close({ waitMs: 0 });
  });
  // New uploads (and the demo library) are analysed without anyone pressing Analyze Photos.
  // Queued durably at once; the threads are woken only once the upload has been answered, so
  // inference does not compete for the cores with the rest of the upload that started it.
  ctx.onPhotoIngested?.push(async (photo, afterAnswer) => {
    await repo.enqueuePhoto(photo.userId, photo.id);
    afterAnswer(() => worker.notify());
  });
  // One renewal at a time: on PostgreSQL each runs on a connection of its own outside the pool
  // (Database.query's `long`), and concurrent ANALYZEs of one table only wait on each other, so a
  // burst of large Analyze Photos from many accounts opened connections past the pool's budget.
  const renewStatistics = coalesced(() => repo.renewStatistics(ctx.database.query));
  return {
    worker,
    repo,
    beginStop,
    async analyzeAll(userId, afterAnswer = (work) => void work()) {
      const queued = await repo.enqueueUnanalysed(userId);
      // Until then the claim is planned for the queue as it was before this library (the
      // probes are written to stay cheap on such statistics, bench/claim.bench.ts). ANALYZE
      // took about 100 ms at 100,000 jobs on PGlite, inside this request when it ran here.
      if (queued >= ANALYZE_AFTER_JOBS) afterAnswer(() => inBackground(renewStatistics));
      worker.notify();
      return { queued, status: await repo.status(userId) };
    },
    status: (userId) => repo.status(userId),
    async start() {
      const stranded = await repo.enqueueStranded().catch((err: unknown) => {
        log('analysis queue: could not queue the photos a crash left without a job', err);
        return 0;
      });
      if (stranded > 0) log(`analysis queue: queued ${stranded} photos a crash left without a job`, undefined);
      worker.start();
    },
  };
}
