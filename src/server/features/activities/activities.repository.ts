import { and, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { activities } from '../../db/schema';

export type ActivityRow = typeof activities.$inferSelect;

export function createActivitiesRepository(db: Db) {
  // Hot reads, prepared once (built once; on node-postgres parsed once per connection).
  const list = db
    .select()
    .from(activities)
    .where(eq(activities.userId, sql.placeholder('userId')))
    .orderBy(desc(activities.createdAt), desc(activities.id))
    .limit(sql.placeholder('limit'))
    .prepare('activities_list');
  const byEvent = db
    .select()
    .from(activities)
    .where(and(eq(activities.userId, sql.placeholder('userId')), eq(activities.eventId, sql.placeholder('eventId'))))
    .limit(1)
    .prepare('activities_by_event');
  return {
    async listForUser(userId: string, limit: number): Promise<ActivityRow[]> {
      return list.execute({ userId, limit });
    },
    async findByEvent(userId: string, eventId: string): Promise<ActivityRow | undefined> {
      return (await byEvent.execute({ userId, eventId }))[0];
    },
    /**
     * The INSERT of a new activity as a statement to compose (ledger.recordEventWithAward):
     * nothing when this user already recorded the event id (the unique index decides, even under a race).
     */
    insertStatement(values: typeof activities.$inferInsert) {
      return db
        .insert(activities)
        .values(values)
        .onConflictDoNothing({ target: [activities.userId, activities.eventId] })
        .returning({ id: activities.id, createdAt: activities.createdAt });
    },
  };
}
export type ActivitiesRepository = ReturnType<typeof createActivitiesRepository>;
