import type { InjectOptions } from 'fastify';
import { eq } from 'drizzle-orm';
import { passwordResets, sessions } from '../../db/schema';
import { DEFAULT_RATE_LIMITS } from '../../http/rate-limits';
import { createTestApp, sessionCookieFrom, signUp, testDbKind, type TestApp } from '../../test/harness';

describe(`auth API (${testDbKind})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      rateLimits: {
        ...DEFAULT_RATE_LIMITS,
        'POST /api/auth/login': [
          { key: 'ip', max: 1000, windowMs: 60_000 },
          { key: 'ip+email', max: 3, windowMs: 60_000 },
        ],
      },
    });
  });
  afterAll(() => t.close());

  const inject = (opts: InjectOptions) => t.app.inject(opts);

  it('registers, sets a secure session cookie and reports the user', async () => {
    const res = await inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { firstName: 'Ada', lastName: 'Lovelace', email: 'Ada@Example.com', password: 'secret1' },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().user).toMatchObject({ firstName: 'Ada', email: 'ada@example.com' });
    const cookie = res.cookies.find((c) => c.name === 'eyevu_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(cookie!.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Stored hashed: the raw token is not a session id in the table.
    const rows = await t.database.db.select().from(sessions).where(eq(sessions.id, cookie!.value));
    expect(rows).toHaveLength(0);

    const me = await inject({ method: 'GET', url: '/api/auth/user', headers: { cookie: sessionCookieFrom(res) } });
    expect(me.statusCode).toBe(200);
    expect(me.json().user.firstName).toBe('Ada');
    expect(typeof me.json().user.createdAt).toBe('string');
  });

  it('answers 401 with a message when signed out', async () => {
    const res = await inject({ method: 'GET', url: '/api/auth/user' });
    expect(res.statusCode).toBe(401);
    expect(res.json().message).toBeTruthy();
  });

  it('refuses a duplicate email with 409', async () => {
    const { body } = await signUp(t.app);
    const res = await inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { ...body, email: body.email.toUpperCase() },
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toBe('An account with this email already exists.');
  });

  it('logs in with the right password, with a new token each time, and refuses a wrong one', async () => {
    const { body, cookie: first } = await signUp(t.app);
    const bad = await inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: body.email, password: 'wrong-pass' },
    });
    expect(bad.statusCode).toBe(401);
    expect(bad.json().message).toBe('Invalid email or password');

    const ok = await inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: body.email, password: body.password },
    });
    expect(ok.statusCode).toBe(200);
    expect(sessionCookieFrom(ok)).not.toBe(first);
  });

  it('logout deletes the session on the server: the old cookie stops working', async () => {
    const { cookie } = await signUp(t.app);
    expect((await inject({ method: 'GET', url: '/api/auth/user', headers: { cookie } })).statusCode).toBe(200);
    // Another signed-in route, so this process has the session cached (http/session-cache.ts).
    expect((await inject({ method: 'GET', url: '/api/subscription', headers: { cookie } })).statusCode).toBe(200);
    const out = await inject({ method: 'POST', url: '/api/auth/logout', headers: { cookie } });
    expect(out.statusCode).toBe(200);
    expect((await inject({ method: 'GET', url: '/api/auth/user', headers: { cookie } })).statusCode).toBe(401);
    expect((await inject({ method: 'GET', url: '/api/subscription', headers: { cookie } })).statusCode).toBe(401);
  });

  it('signing up while signed in ends the session the browser held, as a sign-in does', async () => {
    const { cookie } = await signUp(t.app);
    expect((await inject({ method: 'GET', url: '/api/subscription', headers: { cookie } })).statusCode).toBe(200);
    const other = await inject({
      method: 'POST',
      url: '/api/auth/register',
      headers: { cookie },
      payload: { firstName: 'Bo', lastName: 'B', email: `bo-${Date.now()}@example.com`, password: 'secret12' },
    });
    expect(other.statusCode).toBe(201);
    // The browser now holds the new account's cookie; the one it replaced no longer opens anything.
    expect((await inject({ method: 'GET', url: '/api/auth/user', headers: { cookie } })).statusCode).toBe(401);
    expect((await inject({ method: 'GET', url: '/api/subscription', headers: { cookie } })).statusCode).toBe(401);
  });

  it('the signed-out mark: set by a sign-out and by an auth check that finds no session, dropped at sign-in', async () => {
    const mark = (res: { cookies: { name: string; value: string; httpOnly?: boolean; maxAge?: number }[] }) =>
      res.cookies.find((c) => c.name === 'eyevu_signed_out');
    // Register and login drop a mark left from before, whatever the browser sent.
    const reg = await inject({
      method: 'POST',
      url: '/api/auth/register',
      headers: { cookie: 'eyevu_signed_out=1' },
      payload: { firstName: 'Mark', lastName: 'Twain', email: 'mark@example.com', password: 'secret1' },
    });
    expect(reg.statusCode).toBe(201);
    expect(mark(reg)).toMatchObject({ value: '', maxAge: 0 });
    const cookie = sessionCookieFrom(reg);
    const login = await inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: 'mark@example.com', password: 'secret1' },
    });
    expect(mark(login)).toMatchObject({ value: '', maxAge: 0 });
    // A session's check answers the user and sets nothing.
    const me = await inject({ method: 'GET', url: '/api/auth/user', headers: { cookie } });
    expect(me.statusCode).toBe(200);
    expect(mark(me)).toBeUndefined();
    // Sign-out: the session ends and the mark is set, readable by the app's script.
    const out = await inject({ method: 'POST', url: '/api/auth/logout', headers: { cookie } });
    expect(mark(out)).toMatchObject({ value: '1' });
    expect(mark(out)!.httpOnly).toBeFalsy();
    expect(mark(out)!.maxAge).toBeGreaterThan(0);
    // The ended session's cookie, and no cookie: the 401 carries the mark, and its message.
    for (const headers of [{ cookie }, {}]) {
      const res = await inject({ method: 'GET', url: '/api/auth/user', headers });
      expect(res.statusCode).toBe(401);
      expect(res.json().message).toBeTruthy();
      expect(mark(res)).toMatchObject({ value: '1' });
    }
    // Other private routes refuse as before, without the mark: only the "who am I" decides it.
    const other = await inject({ method: 'GET', url: '/api/subscription' });
    expect(other.statusCode).toBe(401);
    expect(mark(other)).toBeUndefined();
  });

  it('rate-limits login per address and email with a clear 429 and Retry-After', async () => {
    const { body } = await signUp(t.app);
    const attempt = () =>
      inject({ method: 'POST', url: '/api/auth/login', payload: { email: body.email, password: 'nope-nope' } });
    for (let i = 0; i < 3; i++) expect((await attempt()).statusCode).toBe(401);
    const limited = await attempt();
    expect(limited.statusCode).toBe(429);
    expect(limited.json().message).toMatch(/^Too many attempts\. Please wait 1 minute\(s\) and try again\.$/);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Even the right password is refused while the window lasts.
    const right = await inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: body.email, password: body.password },
    });
    expect(right.statusCode).toBe(429);
  });

  it('reset token works once, then the new password signs in and the old does not', async () => {
    const { body, cookie } = await signUp(t.app);
    // Signed in and just used (so this process has the session cached) before the reset.
    expect((await inject({ method: 'GET', url: '/api/subscription', headers: { cookie } })).statusCode).toBe(200);
    const forgot = await inject({ method: 'POST', url: '/api/auth/forgot-password', payload: { email: body.email } });
    expect(forgot.statusCode).toBe(200);
    const { resetToken } = forgot.json();
    expect(resetToken).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const reset = await inject({
      method: 'POST',
      url: '/api/auth/reset-password',
      payload: { token: resetToken, password: 'newpass1' },
    });
    expect(reset.statusCode).toBe(200);
    const again = await inject({
      method: 'POST',
      url: '/api/auth/reset-password',
      payload: { token: resetToken, password: 'other12' },
    });
    expect(again.statusCode).toBe(400);
    expect(again.json().message).toMatch(/invalid or has expired/);

    // Existing sessions end with a reset.
    expect((await inject({ method: 'GET', url: '/api/auth/user', headers: { cookie } })).statusCode).toBe(401);
    expect((await inject({ method: 'GET', url: '/api/subscription', headers: { cookie } })).statusCode).toBe(401);
    const oldPw = await inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: body.email, password: body.password },
    });
    expect(oldPw.statusCode).toBe(401);
    const newPw = await inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: body.email, password: 'newpass1' },
    });
    expect(newPw.statusCode).toBe(200);
  });

  it('an expired reset token is refused', async () => {
    const { body, user } = await signUp(t.app);
    const forgot = await inject({ method: 'POST', url: '/api/auth/forgot-password', payload: { email: body.email } });
    await t.database.db
      .update(passwordResets)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(passwordResets.userId, user.id));
    const res = await inject({
      method: 'POST',
      url: '/api/auth/reset-password',
      payload: { token: forgot.json().resetToken, password: 'newpass1' },
    });
    expect(res.statusCode).toBe(400);
  });

  it('in the local demo, an unknown email gets a token of the same shape that opens nothing', async () => {
    const res = await inject({
      method: 'POST',
      url: '/api/auth/forgot-password',
      payload: { email: 'nobody@example.com' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().resetToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const reset = await inject({
      method: 'POST',
      url: '/api/auth/reset-password',
      payload: { token: res.json().resetToken, password: 'newpass1' },
    });
    expect(reset.statusCode).toBe(400);
  });

  it('returns the reset token only in demo mode without mail', async () => {
    const prod = await createTestApp({ demoMode: false });
    try {
      const { body } = await signUp(prod.app);
      const res = await prod.app.inject({
        method: 'POST',
        url: '/api/auth/forgot-password',
        payload: { email: body.email },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().resetToken).toBeUndefined();
    } finally {
      await prod.close();
    }
  });

  it.each([
    ['malformed JSON', '{"email": ', 'application/json'],
    ['wrong types', JSON.stringify({ email: 42, password: true }), 'application/json'],
    ['missing fields', JSON.stringify({}), 'application/json'],
    ['short password', JSON.stringify({ email: 'a@b.co', password: '12345' }), 'application/json'],
    ['bad email', JSON.stringify({ email: 'not-an-email', password: '123456' }), 'application/json'],
  ])('answers 400 with a message for %s', async (_name, payload, type) => {
    const res = await inject({ method: 'POST', url: '/api/auth/login', payload, headers: { 'content-type': type } });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toEqual(expect.any(String));
  });

  it('gives the password rule in the 400 message', async () => {
    const res = await inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { firstName: 'A', lastName: 'B', email: 'short@example.com', password: '12345' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain('Password must be at least 6 characters');
  });

  it('refuses a name of invisible characters only as missing (it would greet the user with nothing)', async () => {
    for (const [firstName, lastName, field] of [
      ['\u200B', 'B', 'firstName: First name is required'],
      ['A', '\u3164\u200F', 'lastName: Last name is required'],
    ]) {
      const res = await inject({
        method: 'POST',
        url: '/api/auth/register',
        payload: { firstName, lastName, email: `blank-${lastName.length}@example.com`, password: 'secret12' },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe(field);
    }
  });

  it('a pasted reset token longer than any token is refused as invalid, not as missing', async () => {
    const res = await inject({
      method: 'POST',
      url: '/api/auth/reset-password',
      payload: { token: 'a'.repeat(201), password: 'secret12' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('token: This reset token is invalid or has expired.');
  });

  it('refuses a cross-site POST', async () => {
    const { body } = await signUp(t.app);
    const res = await inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { origin: 'https://evil.example', host: 'localhost:5000' },
      payload: { email: body.email, password: body.password },
    });
    expect(res.statusCode).toBe(403);
  });
});
