/**
 * Fixed-window counter per key, in process memory. Good enough for one process; several processes
 * each enforce their own window, which still bounds brute force to N x limit.
 */
export class RateLimiter {
  private windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one attempt; returns seconds to wait when the key is over its limit. */
  hit(key: string): { allowed: boolean; retryAfterSeconds: number } {
    const t = this.now();
    let w = this.windows.get(key);
    if (!w || t - w.start >= this.windowMs) {
      w = { start: t, count: 0 };
      this.windows.set(key, w);
      if (this.windows.size > 50_000) this.prune(t);
    }
    w.count += 1;
    const allowed = w.count <= this.limit;
    return { allowed, retryAfterSeconds: allowed ? 0 : Math.ceil((w.start + this.windowMs - t) / 1000) };
  }

  reset(key: string) {
    this.windows.delete(key);
  }

  private prune(t: number) {
    for (const [k, w] of this.windows) if (t - w.start >= this.windowMs) this.windows.delete(k);
  }
}
