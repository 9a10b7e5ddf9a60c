import { and, eq, isNull, ne, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { stripeEvents, subscriptions, users } from '../../db/schema';

export type SubscriptionRow = typeof subscriptions.$inferSelect;
export type SubscriptionInsert = typeof subscriptions.$inferInsert;

/** SQL for the one-row-per-user subscription state, the Stripe customer link and processed events. */
export function createSubscriptionsRepository(db: Db) {
  // Read on every GET /api/subscription and by every gate: prepared once.
  const byUser = db
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.userId, sql.placeholder('userId')))
    .limit(1)
    .prepare('subscription_by_user');
  return {
    async findByUser(userId: string): Promise<SubscriptionRow | undefined> {
      return (await byUser.execute({ userId }))[0];
    },

    /**
     * Inserts only when the user has never had a subscription row: the primary key makes two
     * concurrent trial requests succeed at most once.
     */
    async insertIfNone(values: SubscriptionInsert): Promise<SubscriptionRow | undefined> {
      const [row] = await db
        .insert(subscriptions)
        .values(values)
        .onConflictDoNothing({ target: subscriptions.userId })
        .returning();
      return row;
    },

    /** Ends a non-Stripe subscription at once. */
    async endNow(userId: string, now: Date): Promise<SubscriptionRow | undefined> {
      const [row] = await db
        .update(subscriptions)
        .set({ status: 'canceled', endDate: now, updatedAt: now })
        .where(and(eq(subscriptions.userId, userId), ne(subscriptions.source, 'stripe')))
        .returning();
      return row;
    },

    async markCancelAtPeriodEnd(userId: string, stripeSubscriptionId: string, now: Date) {
      const [row] = await db
        .update(subscriptions)
        .set({ cancelAtPeriodEnd: true, updatedAt: now })
        .where(and(eq(subscriptions.userId, userId), eq(subscriptions.stripeSubscriptionId, stripeSubscriptionId)))
        .returning();
      return row;
    },

    /**
     * The user's Stripe subscription ended now (cancelled on Stripe at once); its deletion webhook,
     * when it comes, finds it ended already.
     */
    async markStripeCanceled(userId: string, stripeSubscriptionId: string, now: Date) {
      const [row] = await db
        .update(subscriptions)
        .set({ status: 'canceled', endDate: now, cancelAtPeriodEnd: false, updatedAt: now })
        .where(and(eq(subscriptions.userId, userId), eq(subscriptions.stripeSubscriptionId, stripeSubscriptionId)))
        .returning();
      return row;
    },

    async customerIdOf(userId: string): Promise<string | null> {
      const [row] = await db.select({ id: users.stripeCustomerId }).from(users).where(eq(users.id, userId)).limit(1);
      return row?.id ?? null;
    },

    /** Links a Stripe customer once; if another request linked one first, that one is kept. */
    async linkCustomer(userId: string, customerId: string): Promise<string> {
      await db
        .update(users)
        .set({ stripeCustomerId: customerId })
        .where(and(eq(users.id, userId), isNull(users.stripeCustomerId)));
      return (await this.customerIdOf(userId)) ?? customerId;
    },

    /**
     * Runs `apply` only for an event id seen for the first time, in one transaction with recording
     * it: a crash mid-way records nothing, so Stripe's retry is processed again.
     */
    async processEventOnce(
      event: { id: string; type: string },
      apply: (tx: EventTx) => Promise<void>,
    ): Promise<'processed' | 'duplicate'> {
      return db.transaction(async (tx) => {
        const [inserted] = await tx
          .insert(stripeEvents)
          .values({ id: event.id, type: event.type })
          .onConflictDoNothing({ target: stripeEvents.id })
          .returning({ id: stripeEvents.id });
        if (!inserted) return 'duplicate';
        await apply(eventTx(tx as unknown as Db));
        return 'processed';
      });
    },
  };
}
export type SubscriptionsRepository = ReturnType<typeof createSubscriptionsRepository>;

/** The class of the per-user advisory lock a Stripe event takes (any fixed int4). */
const SUBSCRIPTION_EVENT_LOCK = 0x53_55_42_45;

/** The writes a Stripe event may make, inside the event's transaction. */
function eventTx(tx: Db) {
  return {
    async userExists(userId: string): Promise<boolean> {
      const [row] = await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).limit(1);
      return !!row;
    },
    async userIdByCustomer(customerId: string): Promise<string | null> {
      const [row] = await tx
        .select({ id: users.id })
        .from(users)
        .where(eq(users.stripeCustomerId, customerId))
        .limit(1);
      return row?.id ?? null;
    },
    /**
     * The user's row, after taking the user's event lock: events for one user apply one after the
     * other. The row lock alone held nothing while the user had no row yet (a first checkout), so
     * Stripe's concurrent deliveries each read "none" and the last to write won, whatever its age:
     * an older invoice.paid written after a newer deletion made a deleted subscription active.
     */
    async findByUserForUpdate(userId: string): Promise<SubscriptionRow | undefined> {
      // Two-key advisory locks never meet the one-key blob locks (db/locks.ts).
      await tx.execute(sql`select pg_advisory_xact_lock(${SUBSCRIPTION_EVENT_LOCK}::int, hashtext(${userId}::text))`);
      const [row] = await tx
        .select()
        .from(subscriptions)
        .where(eq(subscriptions.userId, userId))
        .for('update')
        .limit(1);
      return row;
    },
    async upsert(values: SubscriptionInsert) {
      await tx
        .insert(subscriptions)
        .values(values)
        .onConflictDoUpdate({ target: subscriptions.userId, set: { ...values, userId: undefined } });
    },
  };
}
export type EventTx = ReturnType<typeof eventTx>;
