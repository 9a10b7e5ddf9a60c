import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { appStatus } from '../../db/schema';

export type AppStatusRow = typeof appStatus.$inferSelect;

export function createAppStatusRepository(db: Db) {
  const byUser = db
    .select()
    .from(appStatus)
    .where(eq(appStatus.userId, sql.placeholder('userId')))
    .limit(1)
    .prepare('app_status_by_user');
  return {
    async find(userId: string): Promise<AppStatusRow | undefined> {
      return (await byUser.execute({ userId }))[0];
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
