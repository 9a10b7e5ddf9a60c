import { and, eq, gt, isNull, ne, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { passwordResets, sessions, users } from '../../db/schema';

export type UserRow = typeof users.$inferSelect;

export function createAuthRepository(db: Db) {
  return {
    async findUserByEmail(email: string): Promise<UserRow | undefined> {
      const [row] = await db.select().from(users).where(eq(users.email, email)).limit(1);
      return row;
    },
    async insertUser(values: typeof users.$inferInsert): Promise<UserRow | undefined> {
      const [row] = await db.insert(users).values(values).onConflictDoNothing({ target: users.email }).returning();
      return row;
    },
    async insertSession(id: string, userId: string, expiresAt: Date) {
      await db.insert(sessions).values({ id, userId, expiresAt });
    },
    /**
     * A sign-in's session, only while the user's password is still the one it verified. The row
     * is read FOR SHARE: a reset in progress (its update holds the row) is waited for and then
     * seen, so a sign-in with the old password never outlives the reset that ended every session.
     * False when the password changed in the meantime.
     */
    async insertSessionIfPassword(id: string, userId: string, passwordHash: string, expiresAt: Date) {
      const res = await db.execute(sql`
        insert into ${sessions} (id, user_id, expires_at)
        select ${id}, u.id, ${expiresAt.toISOString()}::timestamptz from ${users} u
        where u.id = ${userId} and u.password_hash = ${passwordHash}
        for share`);
      return (res as unknown as { rowCount: number | null }).rowCount === 1;
    },
    async deleteSession(id: string) {
      await db.delete(sessions).where(eq(sessions.id, id));
    },
    /**
     * Deletes up to `limit` sessions expired at `now` (the lookup refuses them already); answers
     * how many. No index on the expiry: after hourly purges the table holds about the last 30
     * days' sign-ins, and a scan of those per batch costs less than an index on every sign-in.
     */
    async deleteExpiredSessions(now: Date, limit: number): Promise<number> {
      const res = await db.execute(sql`
        delete from ${sessions} where ${sessions.id} in (
          select ${sessions.id} from ${sessions} where ${sessions.expiresAt} <= ${now.toISOString()}::timestamptz
          limit ${limit}::int)`);
      return (res as unknown as { rowCount: number | null }).rowCount ?? 0;
    },
    async insertReset(id: string, userId: string, expiresAt: Date) {
      await db.insert(passwordResets).values({ id, userId, expiresAt });
    },
    /** True when the token is known, unused and unexpired (read only; the reset itself re-checks). */
    async isResetLive(id: string, now: Date): Promise<boolean> {
      const [row] = await db
        .select({ id: passwordResets.id })
        .from(passwordResets)
        .where(and(eq(passwordResets.id, id), isNull(passwordResets.usedAt), gt(passwordResets.expiresAt, now)))
        .limit(1);
      return !!row;
    },
    /**
     * Stores a new zone only if the row still has the `setAt` the caller decided from, so two
     * concurrent sign-ins cannot both move it.
     */
    async setTimeZone(userId: string, timeZone: string, previousSetAt: Date | null, now: Date) {
      await db
        .update(users)
        // The replaced zone, read in the same statement, for the reward day of the change.
        .set({ timeZone, timeZoneSetAt: now, previousTimeZone: sql`${users.timeZone}` })
        .where(
          and(
            eq(users.id, userId),
            sql`${users.timeZoneSetAt} is not distinct from ${previousSetAt?.toISOString() ?? null}::timestamptz`,
          ),
        );
    },
    /**
     * Marks the token used and sets the password in one transaction; the `used_at is null`
     * guard in the update makes two concurrent uses of one token succeed at most once. Answers the
     * user whose password changed, or null when the token is unknown, used or expired.
     */
    async consumeResetAndSetPassword(id: string, passwordHash: string, now: Date): Promise<string | null> {
      return db.transaction(async (tx) => {
        const [reset] = await tx
          .update(passwordResets)
          .set({ usedAt: now })
          .where(and(eq(passwordResets.id, id), isNull(passwordResets.usedAt), gt(passwordResets.expiresAt, now)))
          .returning({ userId: passwordResets.userId });
        if (!reset) return null;
        await tx.update(users).set({ passwordHash }).where(eq(users.id, reset.userId));
        // Other tokens of this user (mailed earlier, perhaps to an inbox someone else reads) die too.
        await tx
          .update(passwordResets)
          .set({ usedAt: now })
          .where(
            and(eq(passwordResets.userId, reset.userId), ne(passwordResets.id, id), isNull(passwordResets.usedAt)),
          );
        // A reset signs out every device: whoever knew the old password loses access.
        await tx.delete(sessions).where(eq(sessions.userId, reset.userId));
        return reset.userId;
      });
    },
  };
}
export type AuthRepository = ReturnType<typeof createAuthRepository>;
