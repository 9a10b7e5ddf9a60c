/**
 * A least-recently-used cache of rendered images, bounded in bytes, with in-flight
 * de-duplication: identical requests arriving together share one render. Rendering is
 * deterministic for (source blob, filter, intensity, size), so a hit is always correct.
 */
export class RenderCache<T = Buffer> {
  private readonly entries = new Map<string, T>();
  private readonly pending = new Map<string, Promise<T>>();
  private bytes = 0;
  hits = 0;
  misses = 0;

  constructor(
    readonly maxBytes: number,
    private readonly sizeOf: (value: T) => number = (v) => (v as Buffer).length,
  ) {}

  get size() {
    return this.bytes;
  }

  /** Returns the cached bytes (hit) or renders, stores and returns them (miss). */
  async get(key: string, render: () => Promise<T>): Promise<{ bytes: T; hit: boolean }> {
    const found = this.entries.get(key);
    if (found) {
      // Map order is recency order: move to the end.
      this.entries.delete(key);
      this.entries.set(key, found);
      this.hits += 1;
      return { bytes: found, hit: true };
    }
    const inFlight = this.pending.get(key);
    if (inFlight) {
      this.hits += 1;
      return { bytes: await inFlight, hit: true };
    }
    this.misses += 1;
    const p = render();
    this.pending.set(key, p);
    try {
      const bytes = await p;
      this.store(key, bytes);
      return { bytes, hit: false };
    } finally {
      this.pending.delete(key);
    }
  }

  private store(key: string, value: T) {
    const size = this.sizeOf(value);
    if (size > this.maxBytes) return;
    this.entries.set(key, value);
    this.bytes += size;
    for (const [k, v] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= this.sizeOf(v);
    }
  }
}
