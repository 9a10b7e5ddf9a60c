import { lt, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { rateLimitCounters } from '../db/schema';

/**
 * The database's clock in ms since the epoch. Each server's own clock (Date.now()) counted windows
 * apart on machines whose clocks disagree: one a few minutes ahead found every window the others
 * opened already ended and opened its own, so a client spreading its requests over the machines
 * had up to one budget per clock, and one behind kept a window going past its end. `now()` is the
 * statement's (its transaction's) time, one for the whole upsert.
 */
const databaseNowMs = sql`(extract(epoch from now()) * 1000)::bigint`;

/**
 * Shared request-limit counters (rate-limit-store.ts), atomic under concurrent hits from any
 * process. Fixed windows like the in-memory store: the first hit opens a window of `windowMs`,
 * later hits count into it until it ends. Times are the database's clock, the one clock every
 * process on it shares.
 */
export function createRateLimitRepository(db: Db) {
  const t = rateLimitCounters;
  return {
    /** Counts a hit: the hits in the key's window, and the ms until it ends. */
    async hit(key: string, windowMs: number): Promise<{ hits: number; ttlMs: number }> {
      const expired = sql`${t.resetsAt} <= ${databaseNowMs}`;
      const [row] = await db
        .insert(t)
        .values({ key, hits: 1, resetsAt: sql`${databaseNowMs} + ${windowMs}` })
        .onConflictDoUpdate({
          target: t.key,
          set: {
            hits: sql`case when ${expired} then 1 else ${t.hits} + 1 end`,
            resetsAt: sql`case when ${expired} then excluded.resets_at else ${t.resetsAt} end`,
          },
        })
        .returning({ hits: t.hits, ttlMs: sql<string>`${t.resetsAt} - ${databaseNowMs}` });
      if (!row) throw new Error('rate limit upsert returned no row');
      return { hits: row.hits, ttlMs: Math.max(0, Number(row.ttlMs)) };
    },
    /** Windows that ended: their rows only take room (the next hit would start over anyway). */
    async removeEnded(): Promise<void> {
      await db.delete(t).where(lt(t.resetsAt, databaseNowMs));
    },
  };
}
