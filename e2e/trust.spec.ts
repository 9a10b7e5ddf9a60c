import { expect, test } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';

/**
 * The attacks a hostile client tried against `npm start` with its default settings: listening on
 * every interface, no mail server, DEMO_MODE unset. This file starts its own built server that way
 * (the shared e2e server is a loopback demo) and replays each attack over plain HTTP. Clients come
 * from different loopback addresses (127.0.0.2, 127.0.0.3) so per-address limits are exercised as
 * two strangers' machines would.
 */

let server: ChildProcess;
let port = 0;
let dataDir = '';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '0.0.0.0', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: () => any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** One HTTP call from a chosen loopback source address, with an Origin the server accepts. */
function call(
  method: string,
  url: string,
  opts: { from?: string; cookie?: string; json?: unknown; body?: Buffer; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { origin: `http://127.0.0.1:${port}`, ...opts.headers };
  let payload: Buffer | undefined = opts.body;
  if (opts.json !== undefined) {
    payload = Buffer.from(JSON.stringify(opts.json));
    headers['content-type'] = 'application/json';
  }
  if (payload) headers['content-length'] = String(payload.length);
  if (opts.cookie) headers.cookie = opts.cookie;
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method, path: url, headers, localAddress: opts.from ?? '127.0.0.2' },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function register(from = '127.0.0.2') {
  const email = `mallory-${randomBytes(5).toString('hex')}@example.com`;
  const password = 'secret123';
  const res = await call('POST', '/api/auth/register', {
    from,
    json: { email, password, firstName: 'Mal', lastName: 'Lory' },
  });
  expect(res.status).toBe(201);
  const cookie = String(res.headers['set-cookie']).split(';')[0]!;
  return { email, password, cookie, id: res.json().user.id as string };
}

const totalPoints = async (cookie: string) =>
  (await call('GET', '/api/rewards', { cookie })).json().totalPoints as number;

function multipart(name: string, bytes: Buffer, type: string) {
  const boundary = `----eyevu${randomBytes(8).toString('hex')}`;
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="photos"; filename="${name}"\r\nContent-Type: ${type}\r\n\r\n`,
    ),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

test.beforeAll(async () => {
  test.setTimeout(120_000);
  port = await freePort();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'eyevu-trust-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '0.0.0.0',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
  };
  // The operator's defaults: nothing about demo mode, mail or proxies is set.
  for (const k of ['DEMO_MODE', 'SMTP_URL', 'TRUST_PROXY', 'DATABASE_URL', 'BLOB_DIR']) delete env[k];
  server = spawn(process.execPath, ['dist/server/main.js'], { env, stdio: ['ignore', 'inherit', 'inherit'] });
  const deadline = Date.now() + 90_000;
  for (;;) {
    try {
      if ((await call('GET', '/healthz')).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('server did not start');
    await new Promise((r) => setTimeout(r, 250));
  }
});

test.afterAll(async () => {
  if (server?.pid && server.exitCode === null) {
    const exited = new Promise((r) => server.once('exit', r));
    process.kill(server.pid, 'SIGTERM');
    await exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

test('forgot password hands no token to a stranger and answers known and unknown emails alike', async () => {
  const victim = await register();
  const known = await call('POST', '/api/auth/forgot-password', { json: { email: victim.email } });
  const unknown = await call('POST', '/api/auth/forgot-password', {
    json: { email: `nobody-${randomBytes(4).toString('hex')}@example.com` },
  });
  expect(known.status).toBe(200);
  expect(known.json().resetToken).toBeUndefined();
  expect(unknown.status).toBe(known.status);
  expect(unknown.body).toBe(known.body);
  // A guessed token never resets anything.
  const reset = await call('POST', '/api/auth/reset-password', {
    json: { token: randomBytes(32).toString('hex'), password: 'owned123' },
  });
  expect(reset.status).toBe(400);
});

test('a stranger guessing passwords from another address cannot lock the owner out', async () => {
  const victim = await register('127.0.0.3');
  const guesses: number[] = [];
  for (let i = 0; i < 15; i++) {
    guesses.push(
      (
        await call('POST', '/api/auth/login', {
          from: '127.0.0.2',
          json: { email: victim.email, password: `x${i}xxxxx` },
        })
      ).status,
    );
  }
  expect(guesses.slice(0, 10).every((s) => s === 401)).toBe(true);
  const limited = await call('POST', '/api/auth/login', {
    from: '127.0.0.2',
    json: { email: victim.email, password: 'again123' },
  });
  expect(limited.status).toBe(429);
  expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  const owner = await call('POST', '/api/auth/login', {
    from: '127.0.0.3',
    json: { email: victim.email, password: victim.password },
  });
  expect(owner.status).toBe(200);
});

test('finished-ad posts without a witnessed ad break earn nothing', async () => {
  const me = await register();
  const before = await totalPoints(me.cookie);
  const posts = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      call('POST', '/api/activities', {
        cookie: me.cookie,
        headers: i % 2 ? { 'idempotency-key': randomBytes(16).toString('hex') } : {},
        json: {
          app: 'YouTube',
          adDuration: 30,
          timeSaved: 30,
          pointsEarned: 999,
          gameData: { gameType: 'reaction', score: 200, completed: true },
        },
      }),
    ),
  );
  for (const p of posts) expect([400, 404, 409, 429]).toContain(p.status);
  // A break started now cannot be cashed before its 30 s have passed.
  const started = await call('POST', '/api/ad-breaks', { cookie: me.cookie, json: { app: 'YouTube' } });
  expect(started.status).toBe(201);
  const early = await call('POST', '/api/activities', {
    cookie: me.cookie,
    headers: { 'idempotency-key': started.json().id },
    json: { app: 'YouTube', adDuration: 30, gameData: { gameType: 'memory', score: 60, completed: true } },
  });
  expect(early.status).toBeGreaterThanOrEqual(400);
  expect(early.status).toBeLessThan(500);
  expect(await totalPoints(me.cookie)).toBe(before);
  const stats = (await call('GET', '/api/stats', { cookie: me.cookie })).json();
  expect(stats.adsSkipped).toBe(0);
});

test('deleting and re-uploading the same photo pays its upload reward once', async () => {
  const me = await register();
  const jpeg = readFileSync(path.join('e2e', 'fixtures', 'harbour-sunrise.jpg'));
  const upload = async () => {
    const { body, headers } = multipart('harbour.jpg', jpeg, 'image/jpeg');
    const res = await call('POST', '/api/photos', { cookie: me.cookie, body, headers });
    expect(res.status).toBe(201);
    return res.json().results[0].photo as { id: string };
  };
  const first = await upload();
  const afterFirst = await totalPoints(me.cookie);
  expect(afterFirst).toBeGreaterThan(0);
  for (let round = 0; round < 3; round++) {
    const { id } = round === 0 ? first : await upload();
    expect((await call('DELETE', `/api/photos/${id}`, { cookie: me.cookie })).status).toBeLessThan(300);
  }
  await upload();
  expect(await totalPoints(me.cookie)).toBe(afterFirst);
});

test("the upgrade modal's yearly trial lasts 7 days, once", async () => {
  const me = await register();
  const farFuture = new Date(Date.now() + 365 * 86_400_000).toISOString();
  const trial = await call('POST', '/api/subscription', {
    cookie: me.cookie,
    json: { plan: 'yearly', status: 'active', endDate: farFuture, price: 4999 },
  });
  expect(trial.status).toBe(201);
  const sub = (await call('GET', '/api/subscription', { cookie: me.cookie })).json();
  const end = new Date(sub.endDate).getTime();
  expect(end).toBeLessThanOrEqual(Date.now() + 7 * 86_400_000 + 60_000);
  expect(end).toBeGreaterThan(Date.now() + 6 * 86_400_000);
  const again = await call('POST', '/api/subscription', {
    cookie: me.cookie,
    json: { plan: 'monthly', status: 'active', endDate: farFuture, price: 499 },
  });
  expect(again.status).toBe(409);
});

test('three login days cannot be claimed at once by changing the offset', async () => {
  const me = await register();
  const before = await totalPoints(me.cookie);
  const gained: number[] = [];
  for (const utcOffsetMinutes of [840, 0, -720]) {
    const res = await call('POST', '/api/rewards/record', {
      cookie: me.cookie,
      json: { type: 'login', utcOffsetMinutes },
    });
    expect(res.status).toBeLessThan(300);
    gained.push((await totalPoints(me.cookie)) - before);
  }
  expect(gained[2]).toBe(gained[0]);
});

test('a huge, highly compressible image is refused before it is decoded', async () => {
  const me = await register();
  // 12,000 x 10,000 = 120 MP of one colour: a few hundred KB as PNG.
  const png = await sharp({ create: { width: 12_000, height: 10_000, channels: 3, background: '#4a7' } })
    .png({ compressionLevel: 9 })
    .toBuffer();
  const { body, headers } = multipart('flat.png', png, 'image/png');
  const res = await call('POST', '/api/photos', { cookie: me.cookie, body, headers });
  expect(res.status).toBeGreaterThanOrEqual(400);
  expect(res.status).toBeLessThan(500);
  expect(res.json().message ?? JSON.stringify(res.json())).toMatch(/MP|megapixel|large|pixels/i);
});
