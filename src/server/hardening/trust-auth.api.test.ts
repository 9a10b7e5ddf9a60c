import net from 'node:net';
import { and, eq, sql } from 'drizzle-orm';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp, type BuildOptions } from '../app';
import { ConfigError, loadConfig, parseTrustProxy, startupWarnings, type Config } from '../config';
import { passwordResets, pointsLedger, users } from '../db/schema';
import { hashPassword } from '../features/auth/password';
import type { Mailer } from '../features/auth/mailer';
import { createLedger, createRewardsService } from '../features/rewards/index';
import { DEFAULT_RATE_LIMITS, type RateLimitTable } from '../http/rate-limits';
import { createTestDatabase, sessionCookieFrom, signUp, testConfig, type TestDatabase } from '../test/harness';

// Counts scrypt runs while keeping real hashing, at the test set-up's small cost.
vi.mock('../features/auth/password', async (importOriginal) => {
  const real = await importOriginal<typeof import('../features/auth/password')>();
  const cost = { N: 2 ** 12, r: 8, p: 1 };
  const dummy = real.hashPassword('not-a-password', cost);
  return {
    ...real,
    hashPassword: vi.fn((password: string) => real.hashPassword(password, cost)),
    getDummyHash: () => dummy,
  };
});

/**
 * Account takeover, unauthenticated CPU burn, lock-outs and day farming, tried as a hostile client
 * against the app as `npm start` builds it: reset tokens, limits, the login day, proxy and cookies.
 */
const MINUTE = 60_000;
let database: TestDatabase;
const cleanups: Array<() => Promise<void> | void> = [];

async function appWith(overrides: Partial<Config>, opts: Omit<BuildOptions, 'database'> = {}) {
  const config = testConfig(overrides);
  const app = await buildApp(config, { ...opts, database });
  await app.ready();
  cleanups.push(
    () => app.close(),
    () => config.cleanup(),
  );
  return app;
}

const limits = (changes: RateLimitTable): RateLimitTable => ({ ...DEFAULT_RATE_LIMITS, ...changes });

/** The local demo of the e2e suite and the test harness: loopback, no mail, default limits. */
let local: FastifyInstance;
beforeAll(async () => {
  database = await createTestDatabase();
  local = await appWith({});
});
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  await database?.destroy();
});
afterEach(() => {
  vi.useRealTimers();
});

const post = (app: FastifyInstance, url: string, payload: object, extra: Partial<InjectOptions> = {}) =>
  app.inject({ method: 'POST', url, payload, ...extra });

describe('reset tokens', () => {
  it('`npm start` defaults (all interfaces, no mail) are not a demo: no token, and known/unknown emails get the same bytes', async () => {
    // Exactly what main.ts loads with no environment but the test's data folder.
    const started = loadConfig({ NODE_ENV: 'production', DATA_DIR: testConfig().dataDir });
    expect(started.host).toBe('0.0.0.0');
    expect(started.demoMode).toBe(false);
    const exposed = await appWith({ host: started.host, demoMode: started.demoMode, smtpUrl: undefined });
    const { body, user } = await signUp(local);

    const known = await post(
      exposed,
      '/api/auth/forgot-password',
      { email: body.email },
      { remoteAddress: '10.9.0.1' },
    );
    const unknown = await post(
      exposed,
      '/api/auth/forgot-password',
      { email: 'nobody-here@example.com' },
      { remoteAddress: '10.9.0.1' },
    );
    expect(known.statusCode).toBe(200);
    expect(known.json().resetToken).toBeUndefined();
    expect(known.body).toBe(unknown.body);
    expect(known.statusCode).toBe(unknown.statusCode);
    expect(known.headers['content-type']).toBe(unknown.headers['content-type']);
    expect(known.headers['content-length']).toBe(unknown.headers['content-length']);
    // Nothing could deliver a token, so none was made.
    const rows = await database.db.select().from(passwordResets).where(eq(passwordResets.userId, user.id));
    expect(rows).toEqual([]);
    expect(startupWarnings(started).join(' ')).toMatch(/No SMTP_URL/);
  });

  it('demo mode: on for loopback or when asked for, loudly warned when asked for on all interfaces', () => {
    const cfg = (env: Record<string, string>) => loadConfig({ NODE_ENV: 'test', ...env });
    expect(cfg({ HOST: '127.0.0.1' }).demoMode).toBe(true);
    expect(cfg({ HOST: '::1' }).demoMode).toBe(true);
    expect(cfg({ HOST: 'localhost' }).demoMode).toBe(true);
    expect(cfg({ HOST: '0.0.0.0' }).demoMode).toBe(false);
    expect(cfg({ HOST: '192.168.1.20' }).demoMode).toBe(false);
    expect(cfg({ HOST: '127.0.0.1', DEMO_MODE: 'false' }).demoMode).toBe(false);
    const onPurpose = cfg({ HOST: '0.0.0.0', DEMO_MODE: 'true' });
    expect(onPurpose.demoMode).toBe(true);
    expect(startupWarnings(onPurpose).join(' ')).toMatch(
      /ANYONE who can reach this server, through a proxy too, can reset ANY account/,
    );
    // A loopback demo still tells the operator what a header-less proxy in front of it would do.
    expect(startupWarnings(cfg({ HOST: '127.0.0.1' })).join(' ')).toMatch(
      /Before a reverse proxy forwards to this server, set SMTP_URL, TRUST_PROXY or DEMO_MODE=false/,
    );
    // Asked for, it answers proxied requests too, whatever TRUST_PROXY says: the loud warning.
    for (const env of [{}, { TRUST_PROXY: '1' }] as Array<Record<string, string>>) {
      const loud = startupWarnings(cfg({ HOST: '127.0.0.1', DEMO_MODE: 'true', ...env })).join(' ');
      expect(loud).toMatch(/ANYONE who can reach this server, through a proxy too, can reset ANY account/);
      expect(loud).not.toMatch(/TRUST_PROXY/);
    }
    expect(startupWarnings(cfg({ HOST: '127.0.0.1', SMTP_URL: 'smtp://127.0.0.1:2525' }))).toEqual([]);
  });

  it('with a mail transport the answer never waits for the lookup or the mail, is the same for every email, and mail failures are logged', async () => {
    const sent: Array<{ to: string; text: string }> = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const mailer: Mailer = {
      async send(to, _subject, text) {
        await gate;
        if (to.startsWith('broken')) throw new Error('SMTP 554 rejected');
        sent.push({ to, text });
      },
    };
    const logs: string[] = [];
    const mailed = await appWith(
      { host: '0.0.0.0', demoMode: false, smtpUrl: 'smtp://mail.example:587', logLevel: 'silent' },
      { mailer, logStream: { write: (line) => void logs.push(line) } },
    );
    const { body } = await signUp(local);
    const broken = await signUp(local, { email: `broken-${Date.now()}@example.com` });

    // The mail server is stuck: the answers still come, identical for a known and an unknown email.
    // From an address of its own: on PostgreSQL the apps on this database share their limits.
    const from = { remoteAddress: '10.9.0.2' };
    const known = await post(mailed, '/api/auth/forgot-password', { email: body.email.toUpperCase() }, from);
    const unknown = await post(mailed, '/api/auth/forgot-password', { email: 'ghost@example.com' }, from);
    const failing = await post(mailed, '/api/auth/forgot-password', { email: broken.body.email }, from);
    expect(known.statusCode).toBe(200);
    expect(known.body).toBe(unknown.body);
    expect(failing.body).toBe(unknown.body);
    expect(known.json()).toEqual({ message: 'If an account exists for that email, a reset link has been sent.' });
    expect(sent).toEqual([]);

    release();
    await vi.waitFor(() => expect(logs.join('\n')).toMatch(/password reset mail failed/));
    expect(sent.map((m) => m.to)).toEqual([body.email]);
    const token = /\n\n([A-Za-z0-9_-]{43})\n\n/.exec(sent[0]!.text)![1]!;
    expect((await post(mailed, '/api/auth/reset-password', { token, password: 'mailed-new1' }, from)).statusCode).toBe(
      200,
    );
    expect(logs.join('\n')).not.toContain(token);
  });

  it('a bad, used or expired token is refused before any password hashing', async () => {
    const hash = vi.mocked(hashPassword);
    const { body, user } = await signUp(local);
    const token = (await post(local, '/api/auth/forgot-password', { email: body.email })).json().resetToken as string;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);

    hash.mockClear();
    for (const bad of ['x'.repeat(43), 'not-a-token', token.slice(0, -1)]) {
      const res = await post(local, '/api/auth/reset-password', { token: bad, password: 'whatever1' });
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe('This reset token is invalid or has expired.');
    }
    expect(hash).not.toHaveBeenCalled();

    expect((await post(local, '/api/auth/reset-password', { token, password: 'fresh-pass1' })).statusCode).toBe(200);
    expect(hash).toHaveBeenCalledTimes(1);
    hash.mockClear();
    expect((await post(local, '/api/auth/reset-password', { token, password: 'again-pass1' })).statusCode).toBe(400);

    const late = (await post(local, '/api/auth/forgot-password', { email: body.email })).json().resetToken as string;
    await database.db
      .update(passwordResets)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(and(eq(passwordResets.userId, user.id), sql`${passwordResets.usedAt} is null`));
    expect((await post(local, '/api/auth/reset-password', { token: late, password: 'late-pass1' })).statusCode).toBe(
      400,
    );
    expect(hash).not.toHaveBeenCalled();
  });

  it("a successful reset kills the user's other reset tokens", async () => {
    const { body } = await signUp(local);
    const forgot = async () =>
      (await post(local, '/api/auth/forgot-password', { email: body.email })).json().resetToken as string;
    const first = await forgot();
    const second = await forgot();
    const third = await forgot();
    expect(new Set([first, second, third]).size).toBe(3);
    expect((await post(local, '/api/auth/reset-password', { token: second, password: 'chosen-pw1' })).statusCode).toBe(
      200,
    );
    for (const other of [first, third]) {
      const res = await post(local, '/api/auth/reset-password', { token: other, password: 'attacker1' });
      expect(res.statusCode).toBe(400);
    }
    expect((await post(local, '/api/auth/login', { email: body.email, password: 'chosen-pw1' })).statusCode).toBe(200);
  });

  it('a loopback server behind a reverse proxy is not a demo: with TRUST_PROXY, or for a request that came through a proxy, no token', async () => {
    // The usual way to expose a Node server: it listens on 127.0.0.1 and nginx or Caddy forwards
    // the internet to it. A token in the answer there is anyone's reset of any account.
    const cfg = (env: Record<string, string>) => loadConfig({ NODE_ENV: 'test', ...env });
    expect(cfg({ HOST: '127.0.0.1', TRUST_PROXY: '1' }).demoMode).toBe(false);
    expect(cfg({ HOST: '127.0.0.1', TRUST_PROXY: 'loopback' }).demoMode).toBe(false);
    expect(cfg({ HOST: '127.0.0.1', TRUST_PROXY: '1', DEMO_MODE: 'true' }).demoMode).toBe(true);

    // TRUST_PROXY forgotten: the forwarding headers a proxy adds still say where the request came from.
    const demo = await appWith({
      rateLimits: limits({ 'POST /api/auth/forgot-password': [{ key: 'ip', max: 100, windowMs: MINUTE }] }),
    });
    // An address of its own: on PostgreSQL the limit counters are shared with the other apps here.
    const from = { remoteAddress: '127.0.0.9' };
    const { body, user } = await signUp(demo);
    const before = await database.db.select().from(passwordResets).where(eq(passwordResets.userId, user.id));
    for (const headers of [
      { 'x-forwarded-for': '203.0.113.9' },
      { forwarded: 'for=203.0.113.9;proto=https' },
      { 'x-real-ip': '203.0.113.9' },
      { 'x-forwarded-host': 'photos.example.com' },
    ]) {
      const known = await post(demo, '/api/auth/forgot-password', { email: body.email }, { ...from, headers });
      const unknown = await post(
        demo,
        '/api/auth/forgot-password',
        { email: 'nobody@example.com' },
        { ...from, headers },
      );
      expect(known.statusCode, JSON.stringify(headers)).toBe(200);
      expect(known.json().resetToken, JSON.stringify(headers)).toBeUndefined();
      expect(known.body).toBe(unknown.body);
    }
    expect(await database.db.select().from(passwordResets).where(eq(passwordResets.userId, user.id))).toEqual(before);
    // The local demo itself is kept: a browser on this machine still gets its token.
    expect((await post(demo, '/api/auth/forgot-password', { email: body.email }, from)).json().resetToken).toMatch(
      /^[A-Za-z0-9_-]{43}$/,
    );
  });

  it('the local demo gives no token to a page that rebound its own name to this machine (DNS rebinding)', async () => {
    // A page on attacker.example re-points its name at 127.0.0.1 and posts from there: the browser
    // sends Host and Origin attacker.example (so the Origin check passes) and no forwarding header.
    const demo = await appWith({
      rateLimits: limits({ 'POST /api/auth/forgot-password': [{ key: 'ip', max: 100, windowMs: MINUTE }] }),
    });
    const from = { remoteAddress: '127.0.0.10' };
    const { body, user } = await signUp(demo);
    for (const host of [
      'attacker.example:5173',
      'attacker.example',
      '203.0.113.7:5173',
      'localhost.attacker.example',
    ]) {
      const res = await post(
        demo,
        '/api/auth/forgot-password',
        { email: body.email },
        { ...from, headers: { host, origin: `http://${host}` } },
      );
      expect(res.statusCode, host).toBe(200);
      expect(res.json().resetToken, host).toBeUndefined();
    }
    expect(await database.db.select().from(passwordResets).where(eq(passwordResets.userId, user.id))).toEqual([]);
    // The browser on this machine, by any loopback name, still gets its token.
    for (const host of ['localhost:5173', '127.0.0.1:5173', '[::1]:5173', 'LOCALHOST', 'eyevu.localhost:5173']) {
      const res = await post(
        demo,
        '/api/auth/forgot-password',
        { email: body.email },
        { ...from, headers: { host, origin: `http://${host}` } },
      );
      expect(res.json().resetToken, host).toMatch(/^[A-Za-z0-9_-]{43}$/);
    }
  });

  it("the local demo gives no token through a proxy speaking HTTP/1.0 upstream (nginx's default)", async () => {
    const demo = await appWith({
      rateLimits: limits({ 'POST /api/auth/forgot-password': [{ key: 'ip', max: 100, windowMs: MINUTE }] }),
    });
    const { body } = await signUp(demo);
    const url = new URL(await demo.listen({ port: 0, host: '127.0.0.1' }));
    const host = `127.0.0.1:${url.port}`;
    /** A raw request, as nginx's `proxy_pass http://127.0.0.1:PORT` sends it, or as a browser does. */
    const ask = (version: '1.0' | '1.1') =>
      new Promise<string>((resolve, reject) => {
        const json = JSON.stringify({ email: body.email });
        const socket = net.connect(Number(url.port), '127.0.0.1', () =>
          socket.write(
            `POST /api/auth/forgot-password HTTP/${version}\r\nHost: ${host}\r\nOrigin: http://${host}\r\n` +
              `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`,
          ),
        );
        let got = '';
        socket.on('data', (d) => (got += d.toString()));
        socket.on('end', () => resolve(got));
        socket.on('error', reject);
      });
    const proxied = await ask('1.0');
    expect(proxied).toMatch(/^HTTP\/1\.[01] 200/);
    expect(proxied).not.toMatch(/resetToken/);
    // The browser on this machine still gets its token.
    expect(await ask('1.1')).toMatch(/"resetToken":"[A-Za-z0-9_-]{43}"/);
  });

  it('in the local demo an unknown email gets a token of the same shape, which opens nothing', async () => {
    const res = await post(local, '/api/auth/forgot-password', { email: 'no-account@example.com' });
    const { body } = await signUp(local);
    const real = await post(local, '/api/auth/forgot-password', { email: body.email });
    expect(Object.keys(res.json())).toEqual(Object.keys(real.json()));
    expect(res.json().message).toBe(real.json().message);
    expect(res.json().resetToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const use = await post(local, '/api/auth/reset-password', { token: res.json().resetToken, password: 'nopass1' });
    expect(use.statusCode).toBe(400);
  });
});

describe('limits', () => {
  it('12 bad logins from address A lock A out of that account, never the owner on address B (default limits)', async () => {
    const { body } = await signUp(local);
    const perIpEmail = DEFAULT_RATE_LIMITS['POST /api/auth/login']!.find((r) => r.key === 'ip+email')!.max;
    const codes: number[] = [];
    let limited;
    for (let i = 0; i < perIpEmail + 2; i++) {
      const res = await post(
        local,
        '/api/auth/login',
        { email: body.email, password: `guess-${i}` },
        {
          remoteAddress: '203.0.113.7',
        },
      );
      codes.push(res.statusCode);
      if (res.statusCode === 429) limited = res;
    }
    expect(codes).toEqual([...Array(perIpEmail).fill(401), 429, 429]);
    expect(Number(limited!.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(limited!.headers['retry-after'])).toBeLessThanOrEqual(15 * 60);
    expect(limited!.json().message).toMatch(/^Too many attempts\. Please wait \d+ minute\(s\) and try again\.$/);

    const owner = await post(
      local,
      '/api/auth/login',
      { email: body.email, password: body.password },
      {
        remoteAddress: '198.51.100.20',
      },
    );
    expect(owner.statusCode).toBe(200);
    expect(sessionCookieFrom(owner)).toMatch(/^eyevu_session=/);
  });

  it('a register flood from one address gets 429 with Retry-After; other addresses and the next window are unaffected', async () => {
    const register = DEFAULT_RATE_LIMITS['POST /api/auth/register']!;
    // The defaults leave room for a browser suite (~40 accounts from one address in 5 minutes).
    expect(register).toEqual([{ key: 'ip', max: expect.any(Number), windowMs: expect.any(Number) }]);
    expect(register[0]!.max).toBeGreaterThanOrEqual(40);
    expect(register[0]!.max).toBeLessThanOrEqual(60);
    expect(register[0]!.windowMs).toBeGreaterThanOrEqual(5 * MINUTE);

    const tight = await appWith({
      rateLimits: limits({ 'POST /api/auth/register': [{ key: 'ip', max: 3, windowMs: 15 * MINUTE }] }),
    });
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const account = (n: number) => ({
      firstName: 'Flood',
      lastName: 'Er',
      email: `flood-${n}-${Date.now()}@example.com`,
      password: 'secret123',
    });
    const from = (ip: string, n: number) => post(tight, '/api/auth/register', account(n), { remoteAddress: ip });
    const codes = [];
    for (let i = 0; i < 5; i++) codes.push((await from('192.0.2.50', i)).statusCode);
    expect(codes).toEqual([201, 201, 201, 429, 429]);
    const refused = await from('192.0.2.50', 9);
    // On PostgreSQL the shared counters keep the database's clock, which runs on during the sign-ups.
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(15 * 60 - 60);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(15 * 60);
    expect(refused.json().message).toBe('Too many attempts. Please wait 15 minute(s) and try again.');
    // An X-Forwarded-For from a client is not a new address: no proxy is trusted by default.
    const spoofed = await post(tight, '/api/auth/register', account(10), {
      remoteAddress: '192.0.2.50',
      headers: { 'x-forwarded-for': '198.18.0.1' },
    });
    expect(spoofed.statusCode).toBe(429);
    expect((await from('192.0.2.51', 11)).statusCode).toBe(201);

    vi.setSystemTime(Date.now() + 15 * MINUTE + 1000);
    // A fake Date does not move the database's clock: the shared counters' window ends there.
    await database.db.execute(sql`update rate_limit_counters set resets_at = resets_at - ${15 * MINUTE + 1000}`);
    expect((await from('192.0.2.50', 12)).statusCode).toBe(201);
  });

  it("signed-in limits count per user, so one user cannot spend another's budget from the same address", async () => {
    const tight = await appWith({
      rateLimits: limits({ 'POST /api/photos': [{ key: 'user', max: 2, windowMs: 5 * MINUTE }] }),
    });
    const a = await signUp(local);
    const b = await signUp(local);
    const upload = (cookie: string) => post(tight, '/api/photos', {}, { headers: { cookie } });
    expect((await upload(a.cookie)).statusCode).toBe(400);
    expect((await upload(a.cookie)).statusCode).toBe(400);
    const limited = await upload(a.cookie);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBeDefined();
    expect((await upload(b.cookie)).statusCode).toBe(400);
  });

  it('forgot-password: per address, and per email from any address (no mail bombing one inbox)', async () => {
    const tight = await appWith({
      rateLimits: limits({
        'POST /api/auth/forgot-password': [
          { key: 'ip', max: 3, windowMs: 15 * MINUTE },
          { key: 'email', max: 2, windowMs: 60 * MINUTE },
        ],
      }),
    });
    const ask = (email: string, ip: string) =>
      post(tight, '/api/auth/forgot-password', { email }, { remoteAddress: ip });
    expect((await ask('victim@example.com', '10.20.0.1')).statusCode).toBe(200);
    expect((await ask('Victim@Example.com ', '10.20.0.2')).statusCode).toBe(200);
    const third = await ask('victim@example.com', '10.20.0.3');
    expect(third.statusCode).toBe(429);
    expect(Number(third.headers['retry-after'])).toBeGreaterThan(15 * 60);
    for (let i = 0; i < 3; i++) await ask(`other${i}@example.com`, '10.20.0.9');
    expect((await ask('fresh@example.com', '10.20.0.9')).statusCode).toBe(429);
  });

  it('every costly or abusable endpoint is in the one limits table', () => {
    for (const route of [
      'POST /api/auth/register',
      'POST /api/auth/login',
      'POST /api/auth/forgot-password',
      'POST /api/auth/reset-password',
      'POST /api/photos',
      'POST /api/photo-filters/preview',
      'POST /api/photo-filters/apply',
      'POST /api/activities',
      'POST /api/ad-breaks',
      'POST /api/subscription',
      'POST /api/subscription/upgrade',
      'POST /api/subscription/cancel',
      'POST /api/create-subscription',
      'GET /api/billing/invoices',
    ]) {
      expect(DEFAULT_RATE_LIMITS[route]?.length, route).toBeGreaterThan(0);
    }
    const loginKeys = DEFAULT_RATE_LIMITS['POST /api/auth/login']!.map((r) => r.key).sort();
    // No rule keyed by the email alone: a stranger could then lock the owner out.
    expect(loginKeys).toEqual(['ip', 'ip+email']);
  });
});

describe('login day', () => {
  const zoneOf = async (userId: string) => (await database.db.select().from(users).where(eq(users.id, userId)))[0]!;
  const loginEntries = (userId: string) =>
    database.db
      .select()
      .from(pointsLedger)
      .where(and(eq(pointsLedger.userId, userId), eq(pointsLedger.source, 'login')));

  it('the zone is stored at registration or first login, canonical, and changes at most once a week', async () => {
    const reg = await signUp(local, { timeZone: 'asia/tokyo' });
    expect(await zoneOf(reg.user.id)).toMatchObject({ timeZone: 'Asia/Tokyo', timeZoneSetAt: expect.any(Date) });

    const later = await signUp(local);
    expect((await zoneOf(later.user.id)).timeZone).toBeNull();
    const login = (timeZone: string) =>
      post(local, '/api/auth/login', { email: later.body.email, password: later.body.password, timeZone });
    expect((await login('Europe/Paris')).statusCode).toBe(200);
    expect((await zoneOf(later.user.id)).timeZone).toBe('Europe/Paris');
    expect((await login('Pacific/Kiritimati')).statusCode).toBe(200);
    expect((await zoneOf(later.user.id)).timeZone).toBe('Europe/Paris');

    // A name the server does not know changes nothing, and never stops the sign-in.
    const unknown = await post(local, '/api/auth/login', {
      email: later.body.email,
      password: later.body.password,
      timeZone: 'Mars/Olympus_Mons',
    });
    expect(unknown.statusCode).toBe(200);
    expect((await zoneOf(later.user.id)).timeZone).toBe('Europe/Paris');
  });

  it("a browser reporting a zone the server does not know ('Etc/Unknown', a zone newer than its data) can sign up and sign in", async () => {
    // Chrome and Safari say 'Etc/Unknown' when the device's zone is newer than their zone data.
    const reg = await signUp(local, { timeZone: 'Etc/Unknown' });
    expect((await zoneOf(reg.user.id)).timeZone).toBeNull();
    const login = await post(local, '/api/auth/login', {
      email: reg.body.email,
      password: reg.body.password,
      timeZone: 'America/Somewhere_New',
    });
    expect(login.statusCode).toBe(200);
    expect((await zoneOf(reg.user.id)).timeZone).toBeNull();
    // Still bounded: no browser sends a zone name this long.
    const long = await post(local, '/api/auth/login', {
      email: reg.body.email,
      password: reg.body.password,
      timeZone: 'A/'.repeat(100),
    });
    expect(long.statusCode).toBe(400);
  });

  it('offsets of +14 h / -12 h and a zone hop cannot claim more than one login day', async () => {
    const { cookie, user, body } = await signUp(local, { timeZone: 'Etc/GMT+12' });
    const claim = (utcOffsetMinutes: number) =>
      post(local, '/api/rewards/record', { type: 'login', utcOffsetMinutes }, { headers: { cookie } });
    const first = await claim(-720);
    expect(first.json()).toMatchObject({ awarded: true, points: 10 });
    for (const offset of [840, -720, 840, 0]) expect((await claim(offset)).json().awarded).toBe(false);

    // Even a zone change the weekly rule allows (set a week ago) does not open a second day now.
    await database.db
      .update(users)
      .set({ timeZoneSetAt: new Date(Date.now() - 8 * 86_400_000) })
      .where(eq(users.id, user.id));
    const relogin = await post(local, '/api/auth/login', {
      email: body.email,
      password: body.password,
      timeZone: 'Pacific/Kiritimati',
    });
    const fresh = sessionCookieFrom(relogin);
    expect((await zoneOf(user.id)).timeZone).toBe('Pacific/Kiritimati');
    const afterHop = await post(
      local,
      '/api/rewards/record',
      { type: 'login', utcOffsetMinutes: 840 },
      {
        headers: { cookie: fresh },
      },
    );
    expect(afterHop.json().awarded).toBe(false);
    expect(await loginEntries(user.id)).toHaveLength(1);
    const stats = await local.inject({ url: '/api/rewards', headers: { cookie: fresh } });
    expect(stats.json()).toMatchObject({ totalPoints: 10, currentStreak: 1 });
  });

  it('a login on each local day keeps the streak, however few hours apart (injected clock)', async () => {
    const { user } = await signUp(local, { timeZone: 'America/New_York' });
    let clock = new Date('2024-03-04T13:00:00Z');
    const rewards = createRewardsService({ ledger: createLedger(database.db), now: () => clock });
    const at = async (iso: string) => {
      clock = new Date(iso);
      return rewards.record(user.id, 'login');
    };
    // 23:59:59 on the 4th in New York (UTC-5 until 10 March), then 00:00:01 on the 5th: two days.
    expect(await at('2024-03-05T04:59:59Z')).toMatchObject({ day: '2024-03-04', awarded: true, currentStreak: 1 });
    expect(await at('2024-03-05T05:00:01Z')).toMatchObject({
      day: '2024-03-05',
      points: 20,
      currentStreak: 2,
      message: 'Welcome back! 2 day streak!',
    });
    expect(await at('2024-03-06T04:59:59Z')).toMatchObject({ day: '2024-03-05', awarded: false }); // 23:59:59
    // Evening, then early the next morning (10 h later), then late the day after: every day counts.
    expect(await at('2024-03-06T23:00:00Z')).toMatchObject({ day: '2024-03-06', points: 25, currentStreak: 3 });
    expect(await at('2024-03-07T09:00:00Z')).toMatchObject({ day: '2024-03-07', points: 30, currentStreak: 4 });
    // Across the change to daylight saving time (2 a.m. on 10 March), the local day still decides.
    expect(await at('2024-03-08T04:30:00Z')).toMatchObject({ day: '2024-03-07', awarded: false }); // 23:30
    expect(await at('2024-03-08T05:00:00Z')).toMatchObject({ day: '2024-03-08', currentStreak: 5 });
    expect(await at('2024-03-09T12:00:00Z')).toMatchObject({ day: '2024-03-09', currentStreak: 6 });
    expect(await at('2024-03-10T04:59:00Z')).toMatchObject({ day: '2024-03-09', awarded: false }); // 23:59 EST
    expect(await at('2024-03-10T05:00:00Z')).toMatchObject({ day: '2024-03-10', currentStreak: 7 });
    expect(await at('2024-03-11T03:59:00Z')).toMatchObject({ day: '2024-03-10', awarded: false }); // 23:59 EDT
    // A missed day (the 11th) ends the run: the 12th starts again at 1, with the plain welcome back.
    expect(await at('2024-03-12T14:00:00Z')).toMatchObject({
      day: '2024-03-12',
      points: 10,
      currentStreak: 1,
      message: 'Welcome back!',
    });
    expect((await loginEntries(user.id)).map((e) => e.sourceEventId).sort()).toEqual([
      'login:2024-03-04',
      'login:2024-03-05',
      'login:2024-03-06',
      'login:2024-03-07',
      'login:2024-03-08',
      'login:2024-03-09',
      'login:2024-03-10',
      'login:2024-03-12',
    ]);
  });
});

describe('proxy and cookies', () => {
  it("TRUST_PROXY takes a hop count or addresses, and refuses 'true' with the reason", () => {
    expect(parseTrustProxy(undefined)).toBe(false);
    expect(parseTrustProxy('false')).toBe(false);
    expect(parseTrustProxy('0')).toBe(false);
    expect(parseTrustProxy('1')).toBe(1);
    expect(parseTrustProxy('10.0.0.5, 10.1.0.0/16,::1,loopback')).toEqual([
      '10.0.0.5',
      '10.1.0.0/16',
      '::1',
      'loopback',
    ]);
    expect(() => parseTrustProxy('true')).toThrow(ConfigError);
    expect(() => parseTrustProxy('true')).toThrow(/every hop.*e\.g\. 1/s);
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(/TRUST_PROXY/);
    expect(() => parseTrustProxy('10.0.0.0/33')).toThrow(/not a hop count, address or CIDR: 10\.0\.0\.0\/33/);
    expect(() => parseTrustProxy('proxy.internal')).toThrow(ConfigError);
  });

  it('a proxy in front without TRUST_PROXY (everyone one address to the limits) is reported once in the log', async () => {
    const logged = async (trustProxy: Config['trustProxy'], requests: Array<Partial<InjectOptions>>) => {
      const lines: string[] = [];
      const app = await appWith({ trustProxy }, { logStream: { write: (l) => void lines.push(l) } });
      for (const extra of requests) {
        await post(app, '/api/auth/login', { email: 'someone@example.com', password: 'wrong-pw' }, extra);
      }
      return lines.filter((l) => l.includes('TRUST_PROXY is not set')).length;
    };
    const proxied = { remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '203.0.113.7' } };
    expect(await logged(false, [proxied, proxied, { ...proxied, remoteAddress: '10.0.0.2' }])).toBe(1);
    expect(await logged(false, [{ remoteAddress: '127.0.0.1' }, { remoteAddress: '10.0.0.2' }])).toBe(0);
    // A client on the internet sending the header itself is not a proxy of ours.
    expect(await logged(false, [{ ...proxied, remoteAddress: '198.51.100.4' }])).toBe(0);
    expect(await logged(1, [proxied, proxied])).toBe(0);
  });

  it('the client address comes from X-Forwarded-For only through a trusted proxy', async () => {
    const ipOf = async (trustProxy: Config['trustProxy'], remoteAddress: string, xff?: string) => {
      const config = testConfig({ trustProxy });
      const app = await buildApp(config, { database });
      // Outside /api: every /api route a test adds is private by default.
      app.get('/test-ip', async (request) => ({ ip: request.ip }));
      await app.ready();
      try {
        const res = await app.inject({
          url: '/test-ip',
          remoteAddress,
          headers: xff ? { 'x-forwarded-for': xff } : {},
        });
        return res.json().ip as string;
      } finally {
        await app.close();
        config.cleanup();
      }
    };
    expect(await ipOf(false, '10.0.0.5', '1.2.3.4')).toBe('10.0.0.5');
    expect(await ipOf(1, '10.0.0.5', '6.6.6.6, 1.2.3.4')).toBe('1.2.3.4');
    expect(await ipOf(['10.0.0.5'], '10.0.0.5', '1.2.3.4')).toBe('1.2.3.4');
    expect(await ipOf(['10.0.0.5'], '9.9.9.9', '1.2.3.4')).toBe('9.9.9.9');
  });

  it('session cookies are Secure whenever the original request was HTTPS, even through an untrusted hop', async () => {
    const secureOf = async (headers: Record<string, string>) => {
      const { body } = await signUp(local);
      const res = await post(local, '/api/auth/login', { email: body.email, password: body.password }, { headers });
      expect(res.statusCode).toBe(200);
      return res.cookies.find((c) => c.name === 'eyevu_session' || c.name === '__Host-eyevu_session')!.secure ?? false;
    };
    expect(await secureOf({})).toBe(false);
    expect(await secureOf({ 'x-forwarded-proto': 'https' })).toBe(true);
    expect(await secureOf({ 'x-forwarded-proto': 'https, http' })).toBe(true);
    expect(await secureOf({ forwarded: 'for=192.0.2.60;proto=https;by=203.0.113.43' })).toBe(true);
    expect(await secureOf({ forwarded: 'for=192.0.2.60;proto=http' })).toBe(false);
  });
});
