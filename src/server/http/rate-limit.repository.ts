import { lt, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { rateLimitCounters } from '../db/schema';

/**
 * Shared request-limit counters (rate-limit-store.ts), atomic under concurrent hits from any
 * process. Fixed windows like the in-memory store: the first hit opens a window of `windowMs`,
 * later hits count into it until it ends. Times are the server's clock (Date.now(), as the
 * in-memory store), not the database's.
 */
export function createRateLimitRepository(db: Db) {
  const t = rateLimitCounters;
  return {
    async hit(key: string, windowMs: number, now: number): Promise<{ hits: number; resetsAt: number }> {
      const expired = sql`${t.resetsAt} <= ${now}`;
      const [row] = await db
        .insert(t)
        .values({ key, hits: 1, resetsAt: now + windowMs })
        .onConflictDoUpdate({
          target: t.key,
          set: {
            hits: sql`case when ${expired} then 1 else ${t.hits} + 1 end`,
            resetsAt: sql`case when ${expired} then excluded.resets_at else ${t.resetsAt} end`,
          },
        })
        .returning({ hits: t.hits, resetsAt: t.resetsAt });
      if (!row) throw new Error('rate limit upsert returned no row');
      return row;
    },
    /** Windows that ended: their rows only take room (the next hit would start over anyway). */
    async removeEnded(now: number): Promise<void> {
      await db.delete(t).where(lt(t.resetsAt, now));
    },
  };
}
