import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../lib/tokens';
import { createTestApp, testDbKind, type TestApp } from '../../test/harness';
import { createAuthRepository } from './auth.repository';
import { AccountLimitError, createAuthService } from './auth.service';
import { REFILL_MS } from './sign-in-limit';

/**
 * Machines on one database whose clocks disagree keep one failure bucket and one reset-token
 * lifetime, by the database's clock. Each service here is a machine as a real server builds it: its
 * own clock (`now`, used for session expiry) and no test clock for the limit.
 */
let t: TestApp;
let here: ReturnType<typeof machine>, ahead: typeof here, behind: typeof here;
beforeAll(async () => {
  t = await createTestApp();
  here = machine(0);
  ahead = machine(20 * MINUTE);
  behind = machine(-20 * MINUTE);
});
afterAll(async () => {
  await t?.close();
});

const MINUTE = 60_000;
/** A small budget: every attempt costs a password hash. */
const budget = { failures: 2, refillMs: REFILL_MS };

function machine(skewMs: number) {
  return createAuthService({
    repo: createAuthRepository(t.database.db),
    config: t.config,
    onUserCreated: [],
    log: { error: () => undefined, warn: () => undefined },
    sessionCache: { evict: async () => undefined, evictUser: async () => undefined },
    now: () => new Date(Date.now() + skewMs),
    signInBudget: budget,
  });
}

let accounts = 0;
async function register() {
  accounts += 1;
  const body = { firstName: 'Clock', lastName: 'Skew', email: `skew-${accounts}-${Date.now()}@example.com` };
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { ...body, password: 'secret123' },
  });
  expect(res.statusCode).toBe(201);
  return body.email;
}

/** `ms` before a stored time: the database's clock having run on by that much meanwhile. */
const earlier = (ms: number) => sql`- ${ms}::float8 * interval '1 millisecond'`;
const statusOf = (attempt: Promise<unknown>) =>
  attempt.then(
    () => 200,
    (err: { statusCode?: number }) => err.statusCode,
  );

describe(`sign-in limits and reset tokens across machines whose clocks disagree (${testDbKind})`, () => {
  it("a machine ahead does not drain a locked account's bucket, nor one behind keep it locked past its refill", async () => {
    const email = await register();
    expect(await statusOf(here.login(email, 'guess-1'))).toBe(401);
    expect(await statusOf(here.login(email, 'guess-2'))).toBe(401);
    expect(await statusOf(here.login(email, 'guess-3'))).toBe(429);
    // By its own clock two places had drained back, so a guesser spreading attempts over the
    // machines had more than the budget.
    const refused = await ahead.login(email, 'guess-4').catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(AccountLimitError);
    expect((refused as AccountLimitError).retryAfterSeconds).toBeGreaterThan(REFILL_MS / 1000 - 60);
    expect((refused as AccountLimitError).retryAfterSeconds).toBeLessThanOrEqual(REFILL_MS / 1000);

    // One refill later by the database's clock, the owner gets an attempt on every machine: one
    // behind drained nothing by its own clock and kept them out 20 minutes longer.
    await t.database.db.execute(
      sql`update sign_in_failures set updated_at = updated_at ${earlier(REFILL_MS)} where key = ${hashToken(`sign-in:${email}`)}`,
    );
    expect(await statusOf(behind.login(email, 'secret123'))).toBe(200);
  });

  it("a reset token lives one hour by the database's clock, whichever machine issued or checks it", async () => {
    const email = await register();
    const { resetToken } = await ahead.forgotPassword(email, true);
    const res = (await t.database.db.execute(
      sql`select extract(epoch from (expires_at - now()))::float8 * 1000 as left_ms from password_resets
          where id = ${hashToken(resetToken!)}`,
    )) as unknown as { rows: Array<{ left_ms: number }> };
    // The machine 20 minutes ahead gave it 80.
    expect(Number(res.rows[0]!.left_ms)).toBeGreaterThan(59 * MINUTE);
    expect(Number(res.rows[0]!.left_ms)).toBeLessThanOrEqual(60 * MINUTE);

    // 50 minutes on, it is live for 10 more on every machine (the one ahead found it expired).
    await t.database.db.execute(
      sql`update password_resets set expires_at = expires_at ${earlier(50 * MINUTE)} where id = ${hashToken(resetToken!)}`,
    );
    expect(await statusOf(ahead.resetPassword(resetToken!, 'fresh-pass'))).toBe(200);
  });
});
