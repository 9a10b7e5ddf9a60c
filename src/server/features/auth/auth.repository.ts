import { and, eq, gt, isNull, lt, ne, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { passwordResets, sessions, signInDevices, signInFailures, users } from '../../db/schema';
import { DEVICE_DAYS, DEVICE_FAILURES, type SignInBudget } from './sign-in-limit';

export type UserRow = typeof users.$inferSelect;

/**
 * The instant the failure buckets, browser standings and reset tokens are kept by: the database's
 * clock (`now()`, one for the whole statement) unless a test hands in its own. Each server's clock
 * counted them apart on machines whose clocks disagree: one 20 minutes ahead found two places of a
 * locked account's bucket drained and let guesses through, one behind drained nothing and kept its
 * owner out longer, and a reset token lived an hour by whichever clock issued and checked it.
 */
const instant = (at: Date | undefined) => (at ? sql`${at.toISOString()}::timestamptz` : sql`now()`);
/** `ms` before an instant. */
const before = (at: Date | undefined, ms: number) => sql`(${instant(at)} - ${ms}::float8 * interval '1 millisecond')`;

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
    async takeSignInPlace(key: string, now: Date | undefined, budget: SignInBudget): Promise<number | null> {
      const drained = drainedLevel(now, budget);
      const taken = await db
        .insert(signInFailures)
        .values({ key, level: 1, updatedAt: instant(now) })
        .onConflictDoUpdate({
          target: signInFailures.key,
          set: { level: sql`${drained} + 1`, updatedAt: lastUpdate(now) },
          setWhere: sql`${drained} + 1 <= ${budget.failures}::float8`,
        })
        .returning({ level: signInFailures.level });
      if (taken.length) return null;
      const [row] = await db
        .select({ level: sql<number>`${drained}` })
        .from(signInFailures)
        .where(eq(signInFailures.key, key))
        .limit(1);
      if (row) return Number(row.level);
      // Purged between the two statements (only a drained row is): there is room again.
      return this.takeSignInPlace(key, now, budget);
    },
    /** A right password gives its place back. */
    async returnSignInPlace(key: string, now: Date | undefined, budget: SignInBudget) {
      await db
        .update(signInFailures)
        .set({ level: sql`greatest(0, ${drainedLevel(now, budget)} - 1)`, updatedAt: lastUpdate(now) })
        .where(eq(signInFailures.key, key));
    },
    /**
     * True when this browser signed in to the user within DEVICE_DAYS and has sent fewer than
     * DEVICE_FAILURES wrong passwords since; counts this attempt as one of them (set back to 0 by
     * `trustDevice` when the password was right), in the same statement, so racing guesses with a
     * stolen cookie cannot all pass the check before any is counted.
     */
    async takeDeviceAttempt(id: string, userId: string, now: Date | undefined): Promise<boolean> {
      const rows = await db
        .update(signInDevices)
        .set({ failures: sql`${signInDevices.failures} + 1` })
        .where(
          and(
            eq(signInDevices.id, id),
            eq(signInDevices.userId, userId),
            lt(signInDevices.failures, DEVICE_FAILURES),
            gt(signInDevices.lastUsedAt, before(now, DEVICE_DAYS * 86_400_000)),
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
    async trustDevice(id: string, userId: string, passwordHash: string, now: Date | undefined): Promise<boolean> {
      const res = await db.execute(sql`
        insert into ${signInDevices} (id, user_id, failures, last_used_at)
        select ${id}, u.id, 0, ${instant(now)} from ${users} u
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
    async deleteSpentSignInRecords(now: Date | undefined, budget: SignInBudget, limit: number): Promise<number> {
      const a = await db.execute(sql`
        delete from ${signInFailures} where ${signInFailures.key} in (
          select ${signInFailures.key} from ${signInFailures}
          where ${signInFailures.updatedAt} < ${before(now, budget.failures * budget.refillMs)} limit ${limit}::int)`);
      const b = await db.execute(sql`
        delete from ${signInDevices} where (${signInDevices.id}, ${signInDevices.userId}) in (
          select ${signInDevices.id}, ${signInDevices.userId} from ${signInDevices}
          where ${signInDevices.lastUsedAt} < ${before(now, DEVICE_DAYS * 86_400_000)} limit ${limit}::int)`);
      const count = (res: unknown) => (res as { rowCount: number | null }).rowCount ?? 0;
      return Math.max(count(a), count(b));
    },
    /**
     * Deletes up to `limit` reset tokens past their expiry (used ones included: a use never
     * outlives the hour); answers how many. Each forgot-password of an account left a row for ever.
     */
    async deleteExpiredResets(now: Date | undefined, limit: number): Promise<number> {
      const res = await db.execute(sql`
        delete from ${passwordResets} where ${passwordResets.id} in (
          select ${passwordResets.id} from ${passwordResets}
          where ${passwordResets.expiresAt} <= ${instant(now)} limit ${limit}::int)`);
      return (res as unknown as { rowCount: number | null }).rowCount ?? 0;
    },
    /** A reset token that lives `ttlMs` from `now` (a test's clock; by default the database's). */
    async insertReset(id: string, userId: string, ttlMs: number, now?: Date) {
      await db.insert(passwordResets).values({ id, userId, expiresAt: before(now, -ttlMs) });
    },
    /** True when the token is known, unused and unexpired (read only; the reset itself re-checks). */
    async isResetLive(id: string): Promise<boolean> {
      const [row] = await db
        .select({ id: passwordResets.id })
        .from(passwordResets)
        .where(and(eq(passwordResets.id, id), isNull(passwordResets.usedAt), gt(passwordResets.expiresAt, sql`now()`)))
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
      /** The resetting browser's new device cookie (hashed): its standing is written with the reset. */
      device?: { id: string; at: Date | undefined },
    ): Promise<string | null> {
      return db.transaction(async (tx) => {
        const [reset] = await tx
          .update(passwordResets)
          .set({ usedAt: sql`now()` })
          .where(
            and(eq(passwordResets.id, id), isNull(passwordResets.usedAt), gt(passwordResets.expiresAt, sql`now()`)),
          )
          .returning({ userId: passwordResets.userId });
        if (!reset) return null;
        await tx.update(users).set({ passwordHash }).where(eq(users.id, reset.userId));
        // Other tokens of this user (mailed earlier, perhaps to an inbox someone else reads) die too.
        await tx
          .update(passwordResets)
          .set({ usedAt: sql`now()` })
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
            .values({ id: device.id, userId: reset.userId, failures: 0, lastUsedAt: instant(device.at) });
        }
        return reset.userId;
      });
    },
  };
}
/** A bucket's level at `now`, drained since it was last updated (never below 0; a clock behind drains nothing). */
const drainedLevel = (now: Date | undefined, budget: SignInBudget) =>
  sql`greatest(0, ${signInFailures.level} - greatest(0, extract(epoch from (${instant(now)} - ${signInFailures.updatedAt})) * 1000) / ${budget.refillMs}::float8)`;
/** A bucket's new update time: never moved back (by a test's clock set earlier, or a clock change). */
const lastUpdate = (now: Date | undefined) => sql`greatest(${signInFailures.updatedAt}, ${instant(now)})`;

export type AuthRepository = ReturnType<typeof createAuthRepository>;
