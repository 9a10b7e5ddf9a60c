import { and, eq, gt, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { passwordResets, sessions, users } from '../../db/schema.js';

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
    async deleteSession(id: string) {
      await db.delete(sessions).where(eq(sessions.id, id));
    },
    async insertReset(id: string, userId: string, expiresAt: Date) {
      await db.insert(passwordResets).values({ id, userId, expiresAt });
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
        // A reset signs out every device: whoever knew the old password loses access.
        await tx.delete(sessions).where(eq(sessions.userId, reset.userId));
        return reset.userId;
      });
    },
  };
}
export type AuthRepository = ReturnType<typeof createAuthRepository>;
