import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { users } from '../../db/schema';
import { createTestApp, signUp, testDbKind, type TestApp } from '../../test/harness';
import * as passwords from './password';
import { FAILURE_BUDGET } from './sign-in-limit';

/**
 * One password typed on two devices: a keyboard that sends 'é' as one code point (NFC) and one
 * that sends 'e' and a combining accent (NFD) must both sign in, and accounts whose hash was made
 * from the typed bytes before passwords were normalised keep signing in and are moved over once.
 */
const NFC = 'crème brûlée';
const NFD = NFC.normalize('NFD');

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());
afterEach(() => vi.restoreAllMocks());

let addresses = 0;
/** A fresh client address per attempt, so only the per-account limit counts them. */
const login = (email: string, password: string) => {
  addresses += 1;
  return t.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    remoteAddress: `198.19.${Math.floor(addresses / 250)}.${(addresses % 250) + 1}`,
    payload: { email, password },
  });
};

const storedHash = async (id: string) =>
  (await t.database.db.select({ h: users.passwordHash }).from(users).where(eq(users.id, id)))[0]!.h;

/** An account as made before normalisation: its hash is of the bytes typed then. */
async function legacyAccount(typed: string) {
  const { user, body } = await signUp(t.app, { password: 'placeholder-1' });
  await t.database.db
    .update(users)
    .set({ passwordHash: await passwords.hashPassword(typed) })
    .where(eq(users.id, user.id));
  return { id: user.id, email: body.email };
}

describe(`passwords typed in different Unicode forms (${testDbKind})`, () => {
  it('an account made with the NFC spelling signs in with the NFD one, and the reverse', async () => {
    expect(NFD).not.toBe(NFC);
    const a = await signUp(t.app, { password: NFC });
    expect((await login(a.body.email, NFD)).statusCode).toBe(200);
    expect((await login(a.body.email, NFC)).statusCode).toBe(200);

    const b = await signUp(t.app, { password: NFD });
    expect((await login(b.body.email, NFC)).statusCode).toBe(200);
    expect((await login(b.body.email, NFD)).statusCode).toBe(200);
    expect((await login(b.body.email, 'creme brulee')).statusCode).toBe(401);
  });

  it('full-width characters from an East Asian input method are the same password (NFKC)', async () => {
    const { body } = await signUp(t.app, { password: 'ｐａｓｓ１２３' });
    expect((await login(body.email, 'pass123')).statusCode).toBe(200);
  });

  it('a password reset stores the normalised form', async () => {
    const { body } = await signUp(t.app);
    const forgot = await t.app.inject({ method: 'POST', url: '/api/auth/forgot-password', payload: body });
    const token = forgot.json().resetToken as string;
    const reset = await t.app.inject({
      method: 'POST',
      url: '/api/auth/reset-password',
      payload: { token, password: NFD },
    });
    expect(reset.statusCode).toBe(200);
    expect((await login(body.email, NFC)).statusCode).toBe(200);
  });

  it('the length limits of a new password count the normalised characters', async () => {
    // Eight code units as typed, four characters once composed.
    const short = 'éééé'.normalize('NFD');
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { firstName: 'A', lastName: 'B', email: `short-${Date.now()}@example.com`, password: short },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('password: Password must be at least 6 characters');
  });

  it('an account hashed from raw NFD bytes still signs in, is upgraded once, then every spelling works', async () => {
    // Eight code units as typed (6 or more, so it was accepted then), four once composed: the
    // composed spelling must not be refused as too short at sign-in.
    const typed = 'éééé'.normalize('NFD');
    const account = await legacyAccount(typed);
    const before = await storedHash(account.id);
    // Its owner's other device sends the composed form, which the old hash does not match yet.
    expect((await login(account.email, 'éééé')).statusCode).toBe(401);

    expect((await login(account.email, typed)).statusCode).toBe(200);
    const upgraded = await storedHash(account.id);
    expect(upgraded).not.toBe(before);
    expect(await passwords.verifyPassword('éééé', upgraded)).toBe(true);

    expect((await login(account.email, typed)).statusCode).toBe(200);
    expect(await storedHash(account.id)).toBe(upgraded);
    expect((await login(account.email, 'éééé')).statusCode).toBe(200);
    expect(await storedHash(account.id)).toBe(upgraded);
  });

  it('a wrong ASCII password costs one hash, for a known and an unknown email alike', async () => {
    const { body } = await signUp(t.app);
    const verify = vi.spyOn(passwords, 'verifyPassword');
    expect((await login(body.email, 'wrong-password')).statusCode).toBe(401);
    expect(verify).toHaveBeenCalledTimes(1);
    expect((await login('nobody-here@example.com', 'wrong-password')).statusCode).toBe(401);
    expect(verify).toHaveBeenCalledTimes(2);
    // The right one: one hash too.
    expect((await login(body.email, body.password)).statusCode).toBe(200);
    expect(verify).toHaveBeenCalledTimes(3);
  });

  it('a wrong password that normalisation changes costs two hashes, for an unknown email too', async () => {
    const { body } = await signUp(t.app);
    const verify = vi.spyOn(passwords, 'verifyPassword');
    expect((await login(body.email, NFD)).statusCode).toBe(401);
    expect(verify).toHaveBeenCalledTimes(2);
    expect((await login('nobody-here@example.com', NFD)).statusCode).toBe(401);
    expect(verify).toHaveBeenCalledTimes(4);
  });

  it('the per-account limit counts each wrong attempt once and a legacy sign-in gives its place back', async () => {
    const typed = NFD;
    const account = await legacyAccount(typed);
    for (let i = 0; i < FAILURE_BUDGET - 1; i++) {
      expect((await login(account.email, `${typed} ${i}`)).statusCode).toBe(401);
    }
    // The last place: taken by the right (old-hash) password and given back.
    expect((await login(account.email, typed)).statusCode).toBe(200);
    expect((await login(account.email, 'wrong-password')).statusCode).toBe(401);
    const refused = await login(account.email, NFC);
    expect(refused.statusCode).toBe(429);
  });
});
