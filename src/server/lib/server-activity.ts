/**
 * What this process is serving, for background work (analysis, fingerprints) that should not
 * take the cores from it. The server is quiet when no request is in flight and UPLOAD_GRACE_MS
 * have passed since the last upload was answered: an uploader's client asks for the gallery
 * (the listing, then the new thumbnails) a moment after the answer, and those requests arrive
 * after the upload has left, so the count alone would call the server quiet in between.
 */
export interface ServerActivity {
  /** Requests in flight, uploads included. */
  readonly requests: number;
  /** Upload requests in flight. */
  readonly uploads: number;
  /**
   * Counts a request in until `response` emits `close` (once, when it is done or its client has
   * gone). The one listener is shared by every request: this runs on every answer, the cached
   * first page's included, so it makes no closure per request (`once` would wrap it in one).
   */
  trackRequest(response: { on(event: 'close', listener: () => void): unknown }): void;
  /**
   * Counts an upload in (its request is counted by `trackRequest` as well); the function answered
   * counts it out (once, however often it is called) and starts the grace.
   */
  enterUpload(): () => void;
  /** No request in flight and the grace after the last upload's answer over. */
  quiet(): boolean;
  /** Milliseconds until the server could be quiet: 0 when it is, Infinity while requests are in flight. */
  quietIn(): number;
  /**
   * Calls `listener` each time the server turns quiet after someone found it busy (`quiet()`
   * false), so a worker holding back is woken at once instead of at its next poll.
   */
  onQuiet(listener: () => void): () => void;
  /**
   * Runs `work` once the server is quiet, or after `maxWaitMs` however busy it is (so it never
   * starves). Its failure is logged, an asynchronous work's rejection included.
   */
  whenQuiet(work: () => unknown, maxWaitMs?: number): void;
  /** Runs every waiting `whenQuiet` work now and stops the timers (the server is closing). */
  close(): void;
}

/** How long after an upload's answer the server counts as busy, for the client's gallery refresh to arrive. */
export const UPLOAD_GRACE_MS = 100;
/** The longest `whenQuiet` work waits for a quiet moment by default. */
export const QUIET_MAX_WAIT_MS = 5000;

export function createServerActivity(
  opts: { graceMs?: number; maxWaitMs?: number; now?: () => number; log?: (err: unknown) => void } = {},
): ServerActivity {
  const graceMs = opts.graceMs ?? UPLOAD_GRACE_MS;
  const defaultMaxWaitMs = opts.maxWaitMs ?? QUIET_MAX_WAIT_MS;
  const now = opts.now ?? (() => performance.now());
  const log = opts.log ?? (() => undefined);
  let requests = 0;
  let uploads = 0;
  let graceEnds = -Infinity;
  /** Someone found the server busy since the listeners were last told. */
  let wanted = false;
  let graceTimer: NodeJS.Timeout | undefined;
  const listeners = new Set<() => void>();
  const waiting = new Set<{ work: () => unknown; timer: NodeJS.Timeout }>();

  const run = (work: () => unknown) => {
    try {
      const done = work();
      if (done instanceof Promise) done.catch(log);
    } catch (err) {
      log(err);
    }
  };

  /** Shared by every tracked response; 'close' is emitted once per response. */
  const leaveTracked = () => {
    requests -= 1;
    settle();
  };

  const isQuiet = () => requests === 0 && uploads === 0 && now() >= graceEnds;

  /** After a request left or the grace ran out: tells whoever waits once the server is quiet. */
  function settle() {
    if (requests > 0 || uploads > 0 || (!wanted && waiting.size === 0)) return;
    const left = graceEnds - now();
    if (left > 0) {
      if (graceTimer) clearTimeout(graceTimer);
      graceTimer = setTimeout(() => {
        graceTimer = undefined;
        settle();
      }, left);
      graceTimer.unref?.();
      return;
    }
    for (const w of [...waiting]) {
      waiting.delete(w);
      clearTimeout(w.timer);
      run(w.work);
    }
    if (wanted) {
      wanted = false;
      for (const l of [...listeners]) run(l);
    }
  }

  function enterUpload() {
    uploads += 1;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      uploads -= 1;
      graceEnds = Math.max(graceEnds, now() + graceMs);
      settle();
    };
  }

  return {
    get requests() {
      return requests;
    },
    get uploads() {
      return uploads;
    },
    trackRequest(response) {
      requests += 1;
      response.on('close', leaveTracked);
    },
    enterUpload,
    quiet() {
      const q = isQuiet();
      if (!q) {
        wanted = true;
        // Only the grace left: its timer tells the listeners when it ends.
        settle();
      }
      return q;
    },
    quietIn() {
      if (requests > 0 || uploads > 0) return Infinity;
      return Math.max(0, graceEnds - now());
    },
    onQuiet(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    whenQuiet(work, maxWaitMs = defaultMaxWaitMs) {
      if (isQuiet()) return run(work);
      const w = {
        work,
        timer: setTimeout(() => {
          waiting.delete(w);
          run(work);
        }, maxWaitMs),
      };
      w.timer.unref?.();
      waiting.add(w);
      // Nothing in flight and only the grace left: its timer wakes the waiter.
      settle();
    },
    close() {
      if (graceTimer) clearTimeout(graceTimer);
      graceTimer = undefined;
      for (const w of [...waiting]) {
        waiting.delete(w);
        clearTimeout(w.timer);
        run(w.work);
      }
    },
  };
}
