/**
 * A short-lived in-process cache of resolved sessions (token hash -> user), so a burst of API
 * requests from one signed-in client costs one session query rather than one each.
 *
 * Only found sessions are cached (a session made on another process is seen at once). An entry
 * lives `ttlMs` at most and never past the session's own expiry. Logout and password reset evict
 * here at once; on PostgreSQL every other process hears of it too (session-events.ts) and evicts
 * within milliseconds. While a process cannot hear those events it is `paused`: it caches nothing,
 * so every request asks the database. `ttlMs` bounds what a silently lost event could leave.
 */
export interface CachedSession<U> {
  user: U;
  userId: string;
  /** The session's own expiry (ms since epoch). */
  sessionExpiresAt: number;
}

interface Entry<U> extends CachedSession<U> {
  cachedUntil: number;
}

export class SessionCache<U> {
  private readonly entries = new Map<string, Entry<U>>();
  /** Bumped by every eviction: a lookup that raced one must not store what it read. */
  private generation = 0;
  private paused = false;

  constructor(private readonly opts: { ttlMs: number; maxEntries: number; now?: () => number }) {}

  private now() {
    return this.opts.now ? this.opts.now() : Date.now();
  }

  get size() {
    return this.entries.size;
  }

  get(sessionId: string): CachedSession<U> | undefined {
    if (this.paused) return undefined;
    const e = this.entries.get(sessionId);
    if (!e) return undefined;
    const now = this.now();
    if (e.cachedUntil <= now || e.sessionExpiresAt <= now) {
      this.entries.delete(sessionId);
      return undefined;
    }
    return e;
  }

  /** Call before reading the database; pass the result to `set`. */
  begin(): number {
    return this.generation;
  }

  /**
   * Stores a session read from the database, unless an eviction happened since `begin()` (the row
   * may have been read just before a logout deleted it).
   */
  set(sessionId: string, value: CachedSession<U>, startedAt: number) {
    if (startedAt !== this.generation || this.paused) return;
    if (this.opts.ttlMs <= 0 || this.opts.maxEntries <= 0) return;
    this.entries.delete(sessionId);
    // Bounded: the oldest insertion goes first (Map keeps insertion order).
    while (this.entries.size >= this.opts.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
    this.entries.set(sessionId, { ...value, cachedUntil: this.now() + this.opts.ttlMs });
  }

  evict(sessionId: string) {
    this.generation += 1;
    this.entries.delete(sessionId);
  }

  /** Every cached session of one user (a password reset signs them all out). */
  evictUser(userId: string) {
    this.generation += 1;
    for (const [id, e] of this.entries) if (e.userId === userId) this.entries.delete(id);
  }

  clear() {
    this.generation += 1;
    this.entries.clear();
  }

  /** Forgets everything and caches nothing until `resume` (evictions may be going unheard). */
  pause() {
    this.paused = true;
    this.clear();
  }

  resume() {
    // A lookup that began while paused read a row whose logout this process may not have heard.
    this.generation += 1;
    this.paused = false;
  }
}
