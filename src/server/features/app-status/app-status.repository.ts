import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { appStatus } from '../../db/schema.js';

export type AppStatusRow = typeof appStatus.$inferSelect;

export function createAppStatusRepository(db: Db) {
  return {
    async find(userId: string): Promise<AppStatusRow | undefined> {
      const [row] = await db.select().from(appStatus).where(eq(appStatus.userId, userId)).limit(1);
      return row;
    },
    async upsert(userId: string, values: Partial<Omit<AppStatusRow, 'userId'>>): Promise<AppStatusRow> {
      const [row] = await db
        .insert(appStatus)
        .values({ userId, ...values })
        .onConflictDoUpdate({ target: appStatus.userId, set: values })
        .returning();
      return row!;
    },
    /** Refreshes lastActivity only while active; undefined when inactive or unknown. */
    async touch(userId: string, at: Date): Promise<AppStatusRow | undefined> {
      const [row] = await db
        .update(appStatus)
        .set({ lastActivity: at })
        .where(eq(appStatus.userId, userId))
        .returning();
      return row;
    },
  };
}
export type AppStatusRepository = ReturnType<typeof createAppStatusRepository>;
