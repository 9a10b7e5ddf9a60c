import type { BlobStore } from '../../storage/blob-store';
import type { AnalysisOutcome, AnalysisRepository, ClaimedJob } from './analysis.repository';

/** Turns a photo's preview bytes into its analysis. The real one is the vision engine; tests pass a double. */
export type PhotoAnalyzer = (image: Buffer) => Promise<AnalysisOutcome>;

export interface AnalysisWorkerOptions {
  repo: AnalysisRepository;
  blobs: BlobStore;
  analyze: PhotoAnalyzer;
  /** Called after a user's photo got its final result (analysed or given up), e.g. to sync smart albums. */
  onSettled?: (userId: string) => Promise<void>;
  log?: (msg: string, err?: unknown) => void;
  /** Jobs in flight at once. The vision engine runs one inference at a time; 2 overlaps decoding and I/O. */
  concurrency?: number;
  maxAttempts?: number;
  retryDelayMs?: number;
  /** A claimed job not finished within this time is taken again (its worker is presumed dead). */
  lockMs?: number;
  pollMs?: number;
}

export interface AnalysisWorker {
  start(): void;
  /** Stops claiming; waits for jobs in flight unless `abandon` (used to simulate a crash). */
  stop(opts?: { abandon?: boolean }): Promise<void>;
  /** Wakes the loop now (after enqueueing) instead of at the next poll. */
  notify(): void;
  /** Processes until no job is claimable. For tests and scripts. */
  drain(): Promise<void>;
}

export function createAnalysisWorker(o: AnalysisWorkerOptions): AnalysisWorker {
  const concurrency = o.concurrency ?? 2;
  const maxAttempts = o.maxAttempts ?? 3;
  const retryDelayMs = o.retryDelayMs ?? 2000;
  const lockMs = o.lockMs ?? 5 * 60 * 1000;
  const pollMs = o.pollMs ?? 2000;
  const log = o.log ?? (() => undefined);
  const inFlight = new Set<Promise<void>>();
  let running = false;
  let timer: NodeJS.Timeout | undefined;
  let ticking: Promise<void> | undefined;

  async function process(job: ClaimedJob): Promise<void> {
    const t0 = performance.now();
    try {
      if (await o.repo.closeIfAnalyzed(job)) return;
      const key = await o.repo.previewKey(job.userId, job.photoId);
      if (!key) {
        // Photo deleted meanwhile: its job goes with it (cascade); nothing to do.
        return;
      }
      const outcome = await o.analyze(await o.blobs.read(key));
      await o.repo.complete(job, outcome, performance.now() - t0);
      await o.onSettled?.(job.userId);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      try {
        const r = await o.repo.fail(job, message.slice(0, 500), maxAttempts, retryDelayMs);
        if (r === 'gave-up') await o.onSettled?.(job.userId);
        log(`photo analysis failed (${r})`, err);
      } catch (err2) {
        log('could not record analysis failure', err2);
      }
    }
  }

  /** Claims what free slots allow and starts them; returns how many were claimed. */
  async function fill(): Promise<number> {
    const jobs = await o.repo.claim(concurrency - inFlight.size, lockMs);
    for (const job of jobs) {
      const p = process(job).finally(() => {
        inFlight.delete(p);
        if (running) schedule(0);
      });
      inFlight.add(p);
    }
    return jobs.length;
  }

  function schedule(ms: number) {
    if (!running) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      if (ticking) return;
      ticking = fill()
        .then(() => undefined)
        .catch((err) => log('analysis queue poll failed', err))
        .finally(() => {
          ticking = undefined;
          schedule(pollMs);
        });
    }, ms);
    timer.unref?.();
  }

  return {
    start() {
      if (running) return;
      running = true;
      schedule(0);
    },
    async stop(opts = {}) {
      running = false;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await ticking;
      if (!opts.abandon) await Promise.all([...inFlight]);
    },
    notify() {
      schedule(0);
    },
    async drain() {
      for (;;) {
        const claimed = await fill();
        if (claimed === 0 && inFlight.size === 0) return;
        if (inFlight.size > 0) await Promise.race([...inFlight]);
      }
    },
  };
}
