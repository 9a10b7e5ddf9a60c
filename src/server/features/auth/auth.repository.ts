import { and, eq, gt, isNull, lt, ne, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { passwordResets, sessions, signInDevices, signInFailures, users } from '../../db/schema';
import { DEVICE_DAYS, DEVICE_FAILURES, drainedLevel, type SignInBudget } from './sign-in-limit';

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
    /** Removes an account that was never signed in to (its rows cascade): a sign-up undone. */
    async deleteUser(userId: string) {
      await db.delete(users).where(eq(users.id, userId));
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
    /** Sets a new hash only while the row still holds `oldHash`; true when it did. */
    async replacePasswordHash(userId: string, oldHash: string, newHash: string): Promise<boolean> {
      const rows = await db
        .update(users)
        .set({ passwordHash: newHash })
        .where(and(eq(users.id, userId), eq(users.passwordHash, oldHash)))
        .returning({ id: users.id });
      return rows.length === 1;
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
    /**
     * Takes one place in the account's failure bucket (sign-in-limit.ts) before its password is
     * checked: one statement, under the row's lock on PostgreSQL, so racing attempts from any
     * process take places one at a time and never more than the budget. Answers null when a place
     * was taken, else the drained level that refused it.
     */
    async takeSignInPlace(key: string, now: Date, budget: SignInBudget): Promise<number | null> {
      const at = now.toISOString();
      const drained = sql`greatest(0, ${signInFailures.level} - greatest(0, extract(epoch from (${at}::timestamptz - ${signInFailures.updatedAt})) * 1000) / ${budget.refillMs}::float8)`;
      const taken = await db
        .insert(signInFailures)
        .values({ key, level: 1, updatedAt: now })
        .onConflictDoUpdate({
          target: signInFailures.key,
          set: {
            level: sql`${drained} + 1`,
            updatedAt: sql`greatest(${signInFailures.updatedAt}, ${at}::timestamptz)`,
          },
          setWhere: sql`${drained} + 1 <= ${budget.failures}::float8`,
        })
        .returning({ level: signInFailures.level });
      if (taken.length) return null;
      const [row] = await db.select().from(signInFailures).where(eq(signInFailures.key, key)).limit(1);
      if (row) return drainedLevel(row.level, row.updatedAt, now, budget.refillMs);
      // Purged between the two statements (only a drained row is): there is room again.
      return this.takeSignInPlace(key, now, budget);
    },
    /** A right password gives its place back. */
    async returnSignInPlace(key: string, now: Date, budget: SignInBudget) {
      const at = now.toISOString();
      await db
        .update(signInFailures)
        .set({
          level: sql`greatest(0, ${signInFailures.level} - greatest(0, extract(epoch from (${at}::timestamptz - ${signInFailures.updatedAt})) * 1000) / ${budget.refillMs}::float8 - 1)`,
          updatedAt: sql`greatest(${signInFailures.updatedAt}, ${at}::timestamptz)`,
        })
        .where(eq(signInFailures.key, key));
    },
    /**
     * True when this browser signed in to the user within DEVICE_DAYS and has sent fewer than
     * DEVICE_FAILURES wrong passwords since; counts this attempt as one of them (set back to 0 by
     * `trustDevice` when the password was right), in the same statement, so racing guesses with a
     * stolen cookie cannot all pass the check before any is counted.
     */
    async takeDeviceAttempt(id: string, userId: string, now: Date): Promise<boolean> {
      const since = new Date(now.getTime() - DEVICE_DAYS * 86_400_000);
      const rows = await db
        .update(signInDevices)
        .set({ failures: sql`${signInDevices.failures} + 1` })
        .where(
          and(
            eq(signInDevices.id, id),
            eq(signInDevices.userId, userId),
            lt(signInDevices.failures, DEVICE_FAILURES),
            gt(signInDevices.lastUsedAt, since),
          ),
        )
        .returning({ id: signInDevices.id });
      return rows.length === 1;
    },
    /**
     * Gives the browser standing, only while the user's password is still `passwordHash` (the one
     * the sign-in checked). The row is read FOR SHARE, as for the session: a sign-in that passed
     * its check just before a reset would otherwise write back the standing the reset had just
     * ended, and that browser kept 10 guesses outside the account's budget. False when it did not.
     */
    async trustDevice(id: string, userId: string, passwordHash: string, now: Date): Promise<boolean> {
      const at = now.toISOString();
      const res = await db.execute(sql`
        insert into ${signInDevices} (id, user_id, failures, last_used_at)
        select ${id}, u.id, 0, ${at}::timestamptz from ${users} u
        where u.id = ${userId} and u.password_hash = ${passwordHash}
        for share
        on conflict (id, user_id) do update set failures = 0, last_used_at = excluded.last_used_at`);
      return (res as unknown as { rowCount: number | null }).rowCount === 1;
    },
    /**
     * Deletes buckets drained empty and browsers unused for DEVICE_DAYS, up to `limit` rows of
     * each; answers the larger of the two counts (a batch came back full while it equals `limit`).
     * Nothing they hold limits anyone any more.
     */
    async deleteSpentSignInRecords(now: Date, budget: SignInBudget, limit: number): Promise<number> {
      const drainedBefore = new Date(now.getTime() - budget.failures * budget.refillMs).toISOString();
      const unusedBefore = new Date(now.getTime() - DEVICE_DAYS * 86_400_000).toISOString();
      const a = await db.execute(sql`
        delete from ${signInFailures} where ${signInFailures.key} in (
          select ${signInFailures.key} from ${signInFailures}
          where ${signInFailures.updatedAt} < ${drainedBefore}::timestamptz limit ${limit}::int)`);
      const b = await db.execute(sql`
        delete from ${signInDevices} where (${signInDevices.id}, ${signInDevices.userId}) in (
          select ${signInDevices.id}, ${signInDevices.userId} from ${signInDevices}
          where ${signInDevices.lastUsedAt} < ${unusedBefore}::timestamptz limit ${limit}::int)`);
      const count = (res: unknown) => (res as { rowCount: number | null }).rowCount ?? 0;
      return Math.max(count(a), count(b));
    },
    /**
     * Deletes up to `limit` reset tokens past their expiry (used ones included: a use never
     * outlives the hour); answers how many. Each forgot-password of an account left a row for ever.
     */
    async deleteExpiredResets(now: Date, limit: number): Promise<number> {
      const res = await db.execute(sql`
        delete from ${passwordResets} where ${passwordResets.id} in (
          select ${passwordResets.id} from ${passwordResets}
          where ${passwordResets.expiresAt} <= ${now.toISOString()}::timestamptz limit ${limit}::int)`);
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
    async consumeResetAndSetPassword(
      id: string,
      passwordHash: string,
      now: Date,
      /** The resetting browser's new device cookie (hashed): its standing is written with the reset. */
      device?: { id: string; at: Date },
    ): Promise<string | null> {
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
        // A reset signs out every device: whoever knew the old password loses access, and every
        // browser's standing outside the failure budget with it (the resetting one gets its own).
        await tx.delete(sessions).where(eq(sessions.userId, reset.userId));
        await tx.delete(signInDevices).where(eq(signInDevices.userId, reset.userId));
        if (device) {
          await tx
            .insert(signInDevices)
            .values({ id: device.id, userId: reset.userId, failures: 0, lastUsedAt: device.at });
        }
        return reset.userId;
      });
    },
  };
}
export type AuthRepository = ReturnType<typeof createAuthRepository>;
