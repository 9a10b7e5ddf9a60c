import { and, eq, isNull, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { adBreaks } from '../../db/schema';

export type AdBreakRow = typeof adBreaks.$inferSelect;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function createAdBreaksRepository(db: Db) {
  const byId = db
    .select()
    .from(adBreaks)
    .where(and(eq(adBreaks.id, sql.placeholder('id')), eq(adBreaks.userId, sql.placeholder('userId'))))
    .limit(1)
    .prepare('ad_breaks_by_id');
  return {
    /**
     * Starts an ad break: every unrecorded break of the user is superseded (it can never be
     * recorded), unrecorded ones started before `forgetBefore` are deleted (no longer answerable
     * anyway, so a user cannot grow the table without bound), then the new row is inserted.
     * Serialised per user: two concurrent starts would otherwise both see nothing to supersede and
     * leave two breaks running.
     */
    async start(values: { userId: string; app: string; durationSeconds: number; startedAt: Date; forgetBefore: Date }) {
      return db.transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${'ad-break:' + values.userId}, 0))`);
        await tx
          .delete(adBreaks)
          .where(
            and(
              eq(adBreaks.userId, values.userId),
              isNull(adBreaks.recordedAt),
              lt(adBreaks.startedAt, values.forgetBefore),
            ),
          );
        await tx
          .update(adBreaks)
          .set({ supersededAt: values.startedAt })
          .where(and(eq(adBreaks.userId, values.userId), isNull(adBreaks.recordedAt), isNull(adBreaks.supersededAt)));
        const [row] = await tx
          .insert(adBreaks)
          .values({
            userId: values.userId,
            app: values.app,
            durationSeconds: values.durationSeconds,
            startedAt: values.startedAt,
          })
          .returning();
        return row!;
      });
    },

    /** The user's own ad break; another user's id reads as unknown. */
    async find(userId: string, id: string): Promise<AdBreakRow | undefined> {
      if (!UUID.test(id)) return undefined;
      return (await byId.execute({ id, userId }))[0];
    },

    /**
     * Marks the break recorded unless it was superseded. The row lock makes this and a concurrent
     * start's supersede exclusive: whichever updates first wins, the other's condition no longer holds.
     * Already recorded counts as claimed (the activity insert, unique per event id, decides replays).
     */
    async claim(userId: string, id: string, at: Date): Promise<boolean> {
      const rows = await db
        .update(adBreaks)
        .set({ recordedAt: sql`coalesce(${adBreaks.recordedAt}, ${at.toISOString()}::timestamptz)` })
        .where(and(eq(adBreaks.id, id), eq(adBreaks.userId, userId), isNull(adBreaks.supersededAt)))
        .returning({ id: adBreaks.id });
      return rows.length > 0;
    },
  };
}
export type AdBreaksRepository = ReturnType<typeof createAdBreaksRepository>;
