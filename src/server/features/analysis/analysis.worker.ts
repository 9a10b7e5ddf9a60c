import type { BlobStore } from '../../storage/blob-store';
import type { AnalysisOutcome, AnalysisRepository, ClaimedJob, SettleInTransaction } from './analysis.repository';

/** Turns a photo's preview bytes into its analysis. The real one is the vision engine; tests pass a double. */
export type PhotoAnalyzer = (image: Buffer) => Promise<AnalysisOutcome>;

export interface AnalysisWorkerOptions {
  repo: AnalysisRepository;
  blobs: BlobStore;
  analyze: PhotoAnalyzer;
  /**
   * Run inside the transaction that records a photo's final result (analysed or given up), e.g. to
   * sync its smart albums: whoever reads the photo as analysed reads its albums too.
   */
  onSettled?: SettleInTransaction;
  log?: (msg: string, err?: unknown) => void;
  /** Jobs in flight at once. The vision engine runs one inference at a time; 2 overlaps decoding and I/O. */
  concurrency?: number;
  maxAttempts?: number;
  retryDelayMs?: number;
  /** A claimed job not finished within this time is taken again (its worker is presumed dead). */
  lockMs?: number;
  pollMs?: number;
  /**
   * True while work this process is doing must not share the cores with inference (requests in
   * flight, an uploader's gallery refresh): no job is claimed then, for at most `maxYieldMs` in a
   * row, so steady traffic delays analysis but never starves it. Jobs already claimed finish.
   */
  yieldWhile?: () => boolean;
  maxYieldMs?: number;
  /** The clock of the yield bound (injectable in tests). */
  now?: () => number;
}

export interface AnalysisWorker {
  start(): void;
  /**
   * Stops claiming; waits for jobs in flight unless `abandon` (used to simulate a crash). With
   * `waitMs`, jobs still in flight after it are given back to the queue (`AnalysisRepository.release`),
   * their attempt not counted, and whatever they finish later is not written.
   */
  stop(opts?: { abandon?: boolean; waitMs?: number }): Promise<void>;
  /** Wakes the loop now (after enqueueing) instead of at the next poll. */
  notify(): void;
  /** Processes until no job is claimable. For tests and scripts. */
  drain(): Promise<void>;
}

/** How often a worker holding back for `yieldWhile` looks again (the server turning quiet also wakes it). */
const YIELD_RECHECK_MS = 250;

export function createAnalysisWorker(o: AnalysisWorkerOptions): AnalysisWorker {
  const concurrency = o.concurrency ?? 2;
  const maxAttempts = o.maxAttempts ?? 3;
  const retryDelayMs = o.retryDelayMs ?? 2000;
  const lockMs = o.lockMs ?? 5 * 60 * 1000;
  const pollMs = o.pollMs ?? 2000;
  const log = o.log ?? (() => undefined);
  const maxYieldMs = o.maxYieldMs ?? 5000;
  const now = o.now ?? (() => performance.now());
  /** When the worker first held back for `yieldWhile` without claiming since; undefined when not holding back. */
  let yieldingSince: number | undefined;
  const inFlight = new Set<Promise<void>>();
  /** The jobs of `inFlight`, by id: what a bounded stop gives back. */
  const claimed = new Map<ClaimedJob['id'], ClaimedJob>();
  /** Jobs given back while in flight: another worker may hold them now, so nothing of theirs is written. */
  const released = new Set<ClaimedJob['id']>();
  /** Jobs finished so far: a claim that ran while one finished may have read it still running. */
  let settled = 0;
  let running = false;
  let timer: NodeJS.Timeout | undefined;
  let ticking: Promise<void> | undefined;
  /** Sooner than the poll: set while claims are held back for `yieldWhile`. */
  let recheckIn: number | undefined;

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
      if (released.has(job.id)) return;
      const settled = await o.repo.complete(
        job,
        outcome,
        performance.now() - t0,
        o.onSettled,
        job.attempts >= maxAttempts,
      );
      if (settled === 'left') log('photo analysed; its smart albums could not be written and are left to the repair');
    } catch (err) {
      // Given back at a stop: its threads closing under it is no failed attempt.
      if (released.has(job.id)) return;
      const message = err instanceof Error ? err.message : String(err);
      try {
        const r = await o.repo.fail(job, message.slice(0, 500), maxAttempts, retryDelayMs, o.onSettled);
        log(`photo analysis failed (${r})`, err);
      } catch (err2) {
        log('could not record analysis failure', err2);
      }
    }
  }

  /** Whether to hold back claims now; also arms the re-check for when the bound runs out. */
  function holdBack(): boolean {
    if (!o.yieldWhile?.()) {
      yieldingSince = undefined;
      return false;
    }
    const t = now();
    yieldingSince ??= t;
    const left = yieldingSince + maxYieldMs - t;
    if (left <= 0) {
      yieldingSince = undefined;
      return false;
    }
    recheckIn = Math.min(left, YIELD_RECHECK_MS);
    return true;
  }

  /** Claims what free slots allow and starts them; returns how many were claimed. */
  async function fill(opts: { yielding?: boolean } = {}): Promise<number> {
    if (opts.yielding !== false && holdBack()) return 0;
    const jobs = await o.repo.claim(concurrency - inFlight.size, lockMs);
    for (const job of jobs) {
      claimed.set(job.id, job);
      const p = process(job).finally(() => {
        settled++;
        inFlight.delete(p);
        claimed.delete(job.id);
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
          const next = recheckIn ?? pollMs;
          recheckIn = undefined;
          schedule(next);
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
      if (opts.abandon) return;
      if (opts.waitMs === undefined) {
        await Promise.all([...inFlight]);
        return;
      }
      let bound: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all([...inFlight]),
        new Promise((resolve) => (bound = setTimeout(resolve, opts.waitMs))),
      ]);
      clearTimeout(bound);
      // A job left claimed was locked for `lockMs` (5 minutes) with an attempt spent: no other
      // process took it meanwhile, and three shutdowns in its analysis gave the photo up as failed.
      const left = [...claimed.values()];
      if (left.length === 0) return;
      for (const job of left) released.add(job.id);
      await o.repo.release(left).catch((err: unknown) => log('could not give back the analysis jobs in flight', err));
    },
    notify() {
      schedule(0);
    },
    async drain() {
      for (;;) {
        // A job that failed and was queued again while the claim ran (on PostgreSQL the claim's
        // snapshot may predate that write) is claimable once the claim has ended: claim again.
        const before = settled;
        const claimed = await fill({ yielding: false });
        if (claimed === 0 && inFlight.size === 0 && settled === before) return;
        if (inFlight.size > 0) await Promise.race([...inFlight]);
      }
    },
  };
}
