import { sql } from 'drizzle-orm';
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMITS } from '../http/rate-limits';
import { fromRoot } from '../lib/paths';
import { createTestApp, sessionCookieFrom, signUp, type TestApp } from '../test/harness';
import { recordFigure } from './support';

/**
 * brute force is slowed per account and per IP, cross-site POSTs are refused, the
 * session token changes at login, a reset token works once and expires, cookies are httpOnly and
 * SameSite, security headers are set and the page has no inline script.
 */
const PER_EMAIL = 4;
const PER_IP = 7;
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({
    rateLimits: {
      ...DEFAULT_RATE_LIMITS,
      'POST /api/auth/login': [
        { key: 'ip', max: PER_IP, windowMs: 15 * 60_000 },
        { key: 'ip+email', max: PER_EMAIL, windowMs: 15 * 60_000 },
      ],
    },
    trustProxy: 1,
  });
});
afterAll(async () => {
  await t?.close();
});

const login = (email: string, password: string, ip: string, cookie?: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    remoteAddress: ip,
    headers: cookie ? { cookie } : {},
    payload: { email, password },
  });

describe('auth attacks', () => {
  it('the production limits are bounded', () => {
    const login = DEFAULT_RATE_LIMITS['POST /api/auth/login']!;
    const rule = (key: string) => login.find((r) => r.key === key)!;
    expect(rule('ip+email').max).toBeLessThanOrEqual(10);
    expect(rule('ip').max).toBeLessThanOrEqual(50);
    for (const r of login) expect(r.windowMs).toBeGreaterThanOrEqual(60_000);
  });

  it('brute force on one account from one IP: 429 after the per-(IP, account) limit, even with the right password', async () => {
    const { body } = await signUp(t.app);
    const codes: number[] = [];
    for (let i = 0; i < PER_EMAIL + 3; i++) codes.push((await login(body.email, `wrong${i}`, '10.1.0.1')).statusCode);
    expect(codes.slice(0, PER_EMAIL)).toEqual(Array(PER_EMAIL).fill(401));
    expect(codes.slice(PER_EMAIL)).toEqual([429, 429, 429]);
    await recordFigure(
      '7 auth attacks',
      'login 429 after N tries (per IP+account / per IP, test limits)',
      `${PER_EMAIL} / ${PER_IP}`,
    );
    const right = await login(body.email, body.password, '10.1.0.1');
    expect(right.statusCode).toBe(429);
    expect(right.json().message).toMatch(/Too many attempts/);
    expect(right.cookies.find((c) => c.name === 'eyevu_session')).toBeUndefined();
    // The attacker's address is spent, not the account: its owner elsewhere still signs in.
    expect((await login(body.email, body.password, '10.1.9.9')).statusCode).toBe(200);
  });

  it('credential stuffing from one IP: 429 after the per-IP limit', async () => {
    const codes: number[] = [];
    for (let i = 0; i < PER_IP + 2; i++)
      codes.push((await login(`nobody${i}@example.com`, 'guess123', '10.2.0.1')).statusCode);
    expect(codes.slice(0, PER_IP).every((c) => c === 401)).toBe(true);
    expect(codes.slice(PER_IP)).toEqual([429, 429]);
    // Another IP is not affected.
    expect((await login('nobody@example.com', 'guess123', '10.2.0.2')).statusCode).toBe(401);
  });

  it('a cross-site POST (foreign Origin) is refused before it does anything', async () => {
    const { cookie } = await signUp(t.app);
    for (const origin of ['https://evil.example', 'null', 'http://localhost.evil.example']) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/app-status/activate',
        headers: { cookie, origin, host: 'localhost:80' },
        payload: {},
      });
      expect(res.statusCode, origin).toBe(403);
      expect(res.json().message).toMatch(/Cross-site/);
    }
    const status = (await t.app.inject({ url: '/api/app-status', headers: { cookie } })).json();
    expect(status.isActive).toBe(false);
    const same = await t.app.inject({
      method: 'POST',
      url: '/api/app-status/activate',
      headers: { cookie, origin: 'http://localhost:80', host: 'localhost:80' },
      payload: {},
    });
    expect(same.statusCode).toBe(200);
    // Behind a trusted proxy the public host is X-Forwarded-Host (found by this test: it was refused).
    const proxied = await t.app.inject({
      method: 'POST',
      url: '/api/app-status/deactivate',
      headers: {
        cookie,
        origin: 'https://eyevu.example',
        host: '127.0.0.1:5000',
        'x-forwarded-host': 'eyevu.example',
        'x-forwarded-proto': 'https',
      },
    });
    expect(proxied.statusCode).toBe(200);
  });

  it('no session fixation: login issues a new token and the planted one is dead', async () => {
    const { body, cookie: planted } = await signUp(t.app);
    const res = await login(body.email, body.password, '10.3.0.1', planted);
    expect(res.statusCode).toBe(200);
    const fresh = sessionCookieFrom(res);
    expect(fresh).not.toBe(planted);
    expect((await t.app.inject({ url: '/api/auth/user', headers: { cookie: planted } })).statusCode).toBe(401);
    expect((await t.app.inject({ url: '/api/auth/user', headers: { cookie: fresh } })).statusCode).toBe(200);
    // An attacker-chosen value is never accepted as a session.
    const chosen = 'eyevu_session=attacker-chosen-value';
    const again = await login(body.email, body.password, '10.3.0.2', chosen);
    expect(sessionCookieFrom(again)).not.toBe(chosen);
  });

  it('a reset token works once, expires, and signs out every session', async () => {
    const { body, cookie, user } = await signUp(t.app);
    const forgot = async () =>
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/auth/forgot-password',
          remoteAddress: '10.4.0.1',
          payload: { email: body.email },
        })
      ).json().resetToken as string;
    const reset = (token: string, password: string) =>
      t.app.inject({ method: 'POST', url: '/api/auth/reset-password', payload: { token, password } });

    const token = await forgot();
    expect(token).toEqual(expect.any(String));
    expect((await reset(token, 'newpass1')).statusCode).toBe(200);
    expect((await t.app.inject({ url: '/api/auth/user', headers: { cookie } })).statusCode).toBe(401);
    const second = await reset(token, 'newpass2');
    expect(second.statusCode).toBe(400);
    expect(second.json().message).toMatch(/invalid or has expired/);
    expect((await login(body.email, 'newpass1', '10.4.0.2')).statusCode).toBe(200);

    const late = await forgot();
    await t.database.db.execute(
      sql`update password_resets set expires_at = now() - interval '1 second' where user_id = ${user.id} and used_at is null`,
    );
    expect((await reset(late, 'newpass3')).statusCode).toBe(400);
    expect((await login(body.email, 'newpass1', '10.4.0.3')).statusCode).toBe(200);
    // Tokens are stored hashed: the database never holds the value that was handed out.
    const stored = (await t.database.db.execute(
      sql`select id from password_resets where user_id = ${user.id}`,
    )) as unknown as {
      rows: Array<{ id: string }>;
    };
    expect(stored.rows.map((r) => r.id)).not.toContain(token);
  });

  it('session cookies are httpOnly, SameSite=Lax, path /, and over HTTPS Secure and __Host- (no subdomain can set them)', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      headers: { 'x-forwarded-proto': 'https' },
      payload: { firstName: 'A', lastName: 'B', email: 'cookie-check@example.com', password: 'secret123' },
    });
    expect(res.cookies.map((x) => x.name)).not.toContain('eyevu_session');
    const c = res.cookies.find((x) => x.name === '__Host-eyevu_session')!;
    expect(c).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/', secure: true });
    expect(c.domain).toBeUndefined();
    expect(c.value.length).toBeGreaterThanOrEqual(40);
    // The first Set-Cookie is still the session's (scripts keep the first).
    expect(String([res.headers['set-cookie']].flat()[0])).toMatch(/^__Host-eyevu_session=/);
    const https = { 'x-forwarded-proto': 'https', cookie: `__Host-eyevu_session=${c.value}` };
    const me = await t.app.inject({ url: '/api/auth/user', headers: https });
    expect(me.statusCode).toBe(200);
    const out = await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers: https });
    expect(out.cookies.find((x) => x.name === '__Host-eyevu_session')).toMatchObject({ value: '', path: '/' });
    expect((await t.app.inject({ url: '/api/auth/user', headers: https })).statusCode).toBe(401);
    // Plain HTTP (the local demo) keeps the plain name: a browser keeps no Secure cookie there.
    const plain = await signUp(t.app);
    expect(plain.cookie).toMatch(/^eyevu_session=/);
  });

  it('a session made over HTTPS before the prefix keeps working, and the next sign-in moves it to the prefixed name', async () => {
    const { body, cookie: before } = await signUp(t.app);
    const https = (cookie: string) => ({ 'x-forwarded-proto': 'https', cookie });
    expect((await t.app.inject({ url: '/api/auth/user', headers: https(before) })).statusCode).toBe(200);
    const again = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: https(before),
      remoteAddress: '10.3.0.9',
      payload: { email: body.email, password: body.password },
    });
    expect(again.statusCode).toBe(200);
    const fresh = again.cookies.find((x) => x.name === '__Host-eyevu_session')!;
    expect(fresh.value.length).toBeGreaterThanOrEqual(40);
    // The old name is cleared, with the attributes it was set with over HTTPS.
    expect(again.cookies.find((x) => x.name === 'eyevu_session')).toMatchObject({ value: '', path: '/', secure: true });
    // Both sent (a browser before it applied the clearing): the prefixed one is the session.
    const both = `__Host-eyevu_session=${fresh.value}; ${before}`;
    const me = await t.app.inject({ url: '/api/auth/user', headers: https(both) });
    expect(me.statusCode).toBe(200);
    expect(me.json().user.email).toBe(body.email);
    // A plain-named cookie a sibling subdomain planted does not override the browser's own session.
    const planted = await signUp(t.app);
    const mine = await t.app.inject({
      url: '/api/auth/user',
      headers: https(`${planted.cookie}; __Host-eyevu_session=${fresh.value}`),
    });
    expect(mine.json().user.email).toBe(body.email);
  });

  it('security headers: CSP without inline script, Stripe only where needed, nosniff, framing and referrer rules', async () => {
    for (const url of ['/healthz', '/api/auth/user', '/api/nope']) {
      const res = await t.app.inject({ url });
      const csp = String(res.headers['content-security-policy']);
      const directives = Object.fromEntries(
        csp
          .split(';')
          .map((d) => d.trim().split(/\s+/))
          .map(([k, ...v]) => [k, v]),
      ) as Record<string, string[]>;
      expect(directives['default-src']).toEqual(["'self'"]);
      expect(directives['script-src']).not.toContain("'unsafe-inline'");
      expect(directives['script-src']).not.toContain("'unsafe-eval'");
      expect(directives['object-src']).toEqual(["'none'"]);
      expect(directives['frame-ancestors']).toEqual(["'self'"]);
      for (const [name, values] of Object.entries(directives)) {
        const stripe = values.filter((v) => v.includes('stripe'));
        if (['script-src', 'frame-src', 'connect-src'].includes(name)) {
          for (const s of stripe) expect(s).toMatch(/^https:\/\/(js|hooks|api)\.stripe\.com$/);
        } else expect(stripe, name).toEqual([]);
      }
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['strict-transport-security']).toMatch(/max-age=\d+/);
      expect(res.headers['x-powered-by']).toBeUndefined();
    }
  });

  it('the page has no inline script (source and built index.html)', () => {
    const pages = [fromRoot('index.html'), fromRoot('dist/web/index.html')].filter((p) => existsSync(p));
    expect(pages.length).toBeGreaterThan(0);
    for (const p of pages) {
      const html = readFileSync(p, 'utf8');
      const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
      expect(scripts.length).toBeGreaterThan(0);
      for (const [, attrs, content] of scripts) {
        expect(attrs, p).toMatch(/\bsrc=/);
        expect(content!.trim(), p).toBe('');
      }
      expect(html).not.toMatch(/\son[a-z]+\s*=/i); // no inline event handlers
    }
  });
});
