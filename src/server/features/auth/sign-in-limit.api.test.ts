import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { buildApp } from '../../app';
import { signInDevices } from '../../db/schema';
import { hashToken } from '../../lib/tokens';
import { createTestApp, testConfig, type TestApp } from '../../test/harness';
import { createAuthRepository } from './auth.repository';
import { createAuthService } from './auth.service';
import { purgeSpentAuthRecords } from './session-purge';
import { DEVICE_COOKIE, DEVICE_FAILURES, FAILURE_BUDGET, REFILL_MS, accountLimitMessage } from './sign-in-limit';

/**
 * The per-account limit on failed sign-ins: an attacker with many addresses (each under the
 * per-address limits) spends the account's budget, after which a browser without standing is
 * refused whatever the password, while the owner's browsers keep signing in. On PGlite and on
 * PostgreSQL (EYEVU_TEST_DB=postgres), where racing attempts are taken one at a time.
 */
let t: TestApp;
/** A second server on the same database: another process, which shares nothing else. */
let second: FastifyInstance;
let secondConfig: ReturnType<typeof testConfig>;
beforeAll(async () => {
  t = await createTestApp();
  secondConfig = testConfig();
  second = await buildApp(secondConfig, { database: t.database, now: t.clock.now });
  await second.ready();
});
afterAll(async () => {
  await second?.close();
  secondConfig?.cleanup();
  await t?.close();
});

let addresses = 0;
/** A fresh client address for every attempt: the distributed attacker the per-address limits miss. */
const nextAddress = () => {
  addresses += 1;
  return `198.18.${Math.floor(addresses / 250)}.${(addresses % 250) + 1}`;
};
const deviceFrom = (res: LightMyRequestResponse) => res.cookies.find((c) => c.name === DEVICE_COOKIE)?.value;

const login = (email: string, password: string, device?: string, app = t.app) =>
  app.inject({
    method: 'POST',
    url: '/api/auth/login',
    remoteAddress: nextAddress(),
    headers: device ? { cookie: `${DEVICE_COOKIE}=${device}` } : {},
    payload: { email, password },
  });

let accounts = 0;
async function register() {
  accounts += 1;
  const body = {
    firstName: 'Owner',
    lastName: 'Limit',
    email: `limit-${accounts}-${Date.now()}@example.com`,
    password: 'secret123',
  };
  const res = await t.app.inject({ method: 'POST', url: '/api/auth/register', payload: body });
  expect(res.statusCode).toBe(201);
  return { ...body, device: deviceFrom(res)! };
}

/** `n` wrong passwords in turn, each from its own address; answers their status codes. */
async function guesses(email: string, n: number, device?: string) {
  const codes: number[] = [];
  for (let i = 0; i < n; i++) codes.push((await login(email, `guess-${i}`, device)).statusCode);
  return codes;
}

describe('failed sign-ins per account', () => {
  it('spent from many addresses, the budget refuses even the right password from a new browser, until it refills', async () => {
    const owner = await register();
    expect(await guesses(owner.email, FAILURE_BUDGET)).toEqual(Array(FAILURE_BUDGET).fill(401));

    const refused = await login(owner.email, owner.password);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe(String(REFILL_MS / 1000));
    expect(refused.json().message).toBe(accountLimitMessage(REFILL_MS / 1000));
    expect(refused.cookies.find((c) => c.name === 'eyevu_session')).toBeUndefined();
    expect(deviceFrom(refused)).toBeUndefined();

    // One place drains back each REFILL_MS: the owner (or anyone) gets one attempt then.
    t.clock.advance(REFILL_MS - 1000);
    expect((await login(owner.email, owner.password)).statusCode).toBe(429);
    t.clock.advance(1000);
    const back = await login(owner.email, owner.password);
    expect(back.statusCode).toBe(200);
    expect(deviceFrom(back)).toEqual(expect.any(String));
    // The right password gave its place back; the next wrong one takes it, and the one after waits.
    expect(await guesses(owner.email, 2)).toEqual([401, 429]);
  });

  it("the owner's browser signs in during the attack; another account's or a made-up device cookie does not", async () => {
    const owner = await register();
    const other = await register();
    await guesses(owner.email, FAILURE_BUDGET);
    expect((await login(owner.email, owner.password)).statusCode).toBe(429);

    const ownBrowser = await login(owner.email, owner.password, owner.device);
    expect(ownBrowser.statusCode).toBe(200);
    expect(deviceFrom(ownBrowser)).toBe(owner.device);
    expect((await login(owner.email, owner.password, other.device)).statusCode).toBe(429);
    expect((await login(owner.email, owner.password, 'made-up-device-value')).statusCode).toBe(429);
  });

  it('a device cookie loses its standing after its own wrong passwords (a stolen cookie is no unlimited key)', async () => {
    const owner = await register();
    await guesses(owner.email, FAILURE_BUDGET);
    expect(await guesses(owner.email, DEVICE_FAILURES, owner.device)).toEqual(Array(DEVICE_FAILURES).fill(401));
    expect((await login(owner.email, owner.password, owner.device)).statusCode).toBe(429);
  });

  it('a right password with the cookie starts its count of wrong ones again', async () => {
    const owner = await register();
    await guesses(owner.email, FAILURE_BUDGET);
    await guesses(owner.email, DEVICE_FAILURES - 1, owner.device);
    expect((await login(owner.email, owner.password, owner.device)).statusCode).toBe(200);
    await guesses(owner.email, DEVICE_FAILURES - 1, owner.device);
    expect((await login(owner.email, owner.password, owner.device)).statusCode).toBe(200);
  });

  it('an email without an account is refused alike, so the refusal tells nothing', async () => {
    const email = `nobody-${Date.now()}@example.com`;
    expect(await guesses(email, FAILURE_BUDGET + 1)).toEqual([...Array(FAILURE_BUDGET).fill(401), 429]);
    // Other spellings of one email share its budget.
    const shouted = await login(` ${email.toUpperCase()} `, 'whatever');
    expect(shouted.statusCode).toBe(429);
    expect(shouted.json().message).toBe(accountLimitMessage(REFILL_MS / 1000));
  });

  it("a password reset gives the resetting browser standing and ends every other browser's", async () => {
    const owner = await register();
    await guesses(owner.email, FAILURE_BUDGET);
    const forgot = await t.app.inject({
      method: 'POST',
      url: '/api/auth/forgot-password',
      payload: { email: owner.email },
    });
    const reset = await t.app.inject({
      method: 'POST',
      url: '/api/auth/reset-password',
      payload: { token: forgot.json().resetToken, password: 'fresh-pass' },
    });
    expect(reset.statusCode).toBe(200);
    const resetBrowser = deviceFrom(reset)!;
    expect(resetBrowser).toEqual(expect.any(String));
    expect((await login(owner.email, 'fresh-pass', resetBrowser)).statusCode).toBe(200);
    // The browser that knew the old password has no standing any more.
    expect((await login(owner.email, 'fresh-pass', owner.device)).statusCode).toBe(429);
  });

  it('a sign-in that passed its password check just before a reset does not write back the standing the reset ended', async () => {
    const owner = await register();
    const forgot = await t.app.inject({
      method: 'POST',
      url: '/api/auth/forgot-password',
      payload: { email: owner.email },
    });
    const repo = createAuthRepository(t.database.db);
    let resetBrowser: string | undefined;
    // Whoever knew the old password signs in from a new browser; the owner's reset commits between
    // that sign-in's session and its device standing.
    const service = createAuthService({
      repo: {
        ...repo,
        async insertSessionIfPassword(...args: Parameters<typeof repo.insertSessionIfPassword>) {
          const made = await repo.insertSessionIfPassword(...args);
          const reset = await t.app.inject({
            method: 'POST',
            url: '/api/auth/reset-password',
            payload: { token: forgot.json().resetToken, password: 'fresh-pass' },
          });
          expect(reset.statusCode).toBe(200);
          resetBrowser = deviceFrom(reset);
          return made;
        },
      },
      config: t.config,
      onUserCreated: [],
      log: { error: () => undefined, warn: () => undefined },
      sessionCache: { evict: async () => undefined, evictUser: async () => undefined },
    });
    const signedIn = await service.login(owner.email, owner.password);
    expect(signedIn.device).toBeUndefined();
    const standing = await t.database.db
      .select({ id: signInDevices.id })
      .from(signInDevices)
      .where(eq(signInDevices.userId, (await repo.findUserByEmail(owner.email))!.id));
    expect(standing).toEqual([{ id: hashToken(resetBrowser!) }]);
  });

  it('racing wrong passwords from many addresses take no more than the budget', async () => {
    const owner = await register();
    const codes = (
      await Promise.all(Array.from({ length: FAILURE_BUDGET * 2 }, (_, i) => login(owner.email, `race-${i}`)))
    ).map((r) => r.statusCode);
    expect(codes.filter((c) => c === 401)).toHaveLength(FAILURE_BUDGET);
    expect(codes.filter((c) => c === 429)).toHaveLength(FAILURE_BUDGET);
  });

  it('two servers on one database count into one budget (nothing is kept in a process)', async () => {
    const owner = await register();
    const codes = (
      await Promise.all(
        Array.from({ length: FAILURE_BUDGET * 2 }, (_, i) =>
          login(owner.email, `race-${i}`, undefined, i % 2 ? second : t.app),
        ),
      )
    ).map((r) => r.statusCode);
    expect(codes.filter((c) => c === 401)).toHaveLength(FAILURE_BUDGET);
    expect(codes.filter((c) => c === 429)).toHaveLength(FAILURE_BUDGET);
    // The owner's browser, known to the first server, signs in through the second.
    expect((await login(owner.email, owner.password, owner.device, second)).statusCode).toBe(200);
  });

  it("racing wrong passwords with the owner's cookie take no more than its own allowance", async () => {
    const owner = await register();
    await guesses(owner.email, FAILURE_BUDGET);
    const codes = (
      await Promise.all(
        Array.from({ length: DEVICE_FAILURES * 2 }, (_, i) => login(owner.email, `race-${i}`, owner.device)),
      )
    ).map((r) => r.statusCode);
    expect(codes.filter((c) => c === 401)).toHaveLength(DEVICE_FAILURES);
    expect(codes.filter((c) => c === 429)).toHaveLength(DEVICE_FAILURES);
  });

  it('the device cookie is httpOnly, SameSite=Lax and sent to the auth routes only, after the session cookie', async () => {
    const stamp = Date.now();
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      headers: { 'x-forwarded-proto': 'https' },
      payload: {
        firstName: 'A',
        lastName: 'B',
        email: `device-cookie-${stamp}@example.com`,
        password: 'secret123',
      },
    });
    const c = res.cookies.find((x) => x.name === DEVICE_COOKIE)!;
    expect(c).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/api/auth/' });
    expect(c.value.length).toBeGreaterThanOrEqual(40);
    // Scripts (and tests) that keep the first Set-Cookie as the session still do (over HTTPS the
    // session cookie carries the __Host- prefix).
    expect(String([res.headers['set-cookie']].flat()[0])).toMatch(/^__Host-eyevu_session=/);
    const signedIn = await login(`device-cookie-${stamp}@example.com`, 'secret123');
    expect(String([signedIn.headers['set-cookie']].flat()[0])).toMatch(/^eyevu_session=/);
  });

  it('a sign-in whose browser standing cannot be written still signs in, without the cookie (the error logged)', async () => {
    const owner = await register();
    const repo = createAuthRepository(t.database.db);
    const errors: string[] = [];
    const service = createAuthService({
      repo: {
        ...repo,
        trustDevice: () => Promise.reject(new Error('connection lost')),
      },
      config: t.config,
      onUserCreated: [],
      log: { error: (_obj, msg) => void errors.push(msg), warn: () => undefined },
      sessionCache: { evict: async () => undefined, evictUser: async () => undefined },
    });
    const signedIn = await service.login(owner.email, owner.password);
    expect(signedIn.token).toEqual(expect.any(String));
    expect(signedIn.device).toBeUndefined();
    expect(errors).toEqual(['device standing not written']);
  });

  it('drained buckets, long-unused browsers and expired reset tokens are purged, in batches', async () => {
    const repo = createAuthRepository(t.database.db);
    const owner = await register();
    await guesses(owner.email, 3);
    await t.app.inject({ method: 'POST', url: '/api/auth/forgot-password', payload: { email: owner.email } });
    const count = async () => {
      const res = (await t.database.db.execute(
        `select (select count(*) from sign_in_failures)::int as f, (select count(*) from sign_in_devices)::int as d,
          (select count(*) from password_resets)::int as r`,
      )) as unknown as { rows: Array<{ f: number; d: number; r: number }> };
      return res.rows[0]!;
    };
    const before = await count();
    expect(before.f).toBeGreaterThan(0);
    expect(before.d).toBeGreaterThan(0);
    expect(before.r).toBeGreaterThan(0);
    t.clock.advance(200 * 86_400_000);
    // A token still live at the purge's instant stays.
    const [row] = (
      (await t.database.db.execute(`select id from users limit 1`)) as unknown as { rows: Array<{ id: string }> }
    ).rows;
    await repo.insertReset('still-live', row!.id, 60_000, t.clock.now());
    await purgeSpentAuthRecords(repo, t.clock.now(), { batch: 2 });
    expect(await count()).toEqual({ f: 0, d: 0, r: 1 });
  });
});
