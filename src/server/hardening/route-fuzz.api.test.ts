import { sql, type SQL } from 'drizzle-orm';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { priceFor } from '@domain/plans';
import { DEFAULT_RATE_LIMITS, type RateLimitTable } from '../http/rate-limits';
import type { RouteEntry } from '../http/route-table';
import { startStripeDouble, type StripeDouble } from '../features/payments/stripe-test-double';
import { createTestApp, sessionCookieFrom, signUp, startAdBreak, type TestApp } from '../test/harness';
import { signedWebhook } from '../test/stripe-webhook';
import { fuzzCase, type ValidRequest } from './route-fuzz';
import { jpeg, multipart, rng, seedUser, stripeConfig, WEBHOOK_SECRET, type SeededUser } from './support';

/**
 * Every route the app registers (its `onRoute` table, so a route added later is fuzzed too, and
 * fails here until it has a fixture below) gets CASES_PER_ROUTE seeded hostile variants of a valid
 * request, signed in as user A with user B's ids at hand. For each answer: never a 5xx, never past
 * REQUEST_BOUND_MS, a refusal is JSON with a readable `message`, a variant that breaks the contract
 * is refused, nothing of A's changed unless the answer was a success, nothing of B's is in the answer
 * (unless the request itself carried it), and B's data, as B reads it and in the database, never moves.
 */
const CASES_PER_ROUTE = 28;
const REQUEST_BOUND_MS = 10_000;
const SEED = 20261129;

let t: TestApp;
let stripe: StripeDouble;
let a: SeededUser;
let b: SeededUser;
/** Signs in and out in the session-route cases, so A's own session is never the one ended. */
let spare: { email: string; password: string };
/** Asks for and spends reset tokens, so no reset ends A's sessions. */
let resetUser: { email: string };
let addressCounter = 0;

/** Each limit raised out of the way: a 429 would stop a case before the code under test. */
const roomyLimits: RateLimitTable = Object.fromEntries(
  Object.entries(DEFAULT_RATE_LIMITS).map(([k, rules]) => [k, rules.map((rule) => ({ ...rule, max: 100_000 }))]),
);

beforeAll(async () => {
  stripe = await startStripeDouble();
  t = await createTestApp({ ...stripeConfig(stripe.api), rateLimits: roomyLimits });
  a = await seedUser(t.app, 7101);
  b = await seedUser(t.app, 9173);
  const s = await signUp(t.app);
  spare = { email: s.body.email, password: s.body.password };
  resetUser = { email: (await signUp(t.app)).body.email };
});
afterAll(async () => {
  await t?.close();
  await stripe?.close();
});

/** A fresh client address, so per-address limits and lockouts never meet the fuzzer. */
const nextAddress = () => {
  addressCounter += 1;
  return `10.77.${(addressCounter >> 8) & 255}.${addressCounter & 255}`;
};

async function uploadFor(user: SeededUser, seed: number): Promise<string> {
  const m = multipart([{ name: `extra-${seed}.jpg`, bytes: await jpeg(seed) }]);
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/photos',
    headers: { cookie: user.cookie, ...m.headers },
    payload: m.payload,
  });
  if (res.statusCode !== 201) throw new Error(`upload ${res.statusCode}: ${res.body}`);
  return res.json().results[0].photo.id as string;
}

let serial = 30_000;
const json = (body: object): ValidRequest => ({ body: body as ValidRequest['body'] });

interface Fixture {
  /** Who sends it: A; nobody (a public route); or a session made for the case (the route ends it). */
  as: 'A' | 'nobody' | 'own session';
  /** A valid request, made afresh for each case (some spend what they use: a photo, a token, a break). */
  valid(): Promise<ValidRequest> | ValidRequest;
  /** Body fields read with coercion by design (`utcOffsetMinutes`): a wrong type there may pass. */
  coerced?: string[];
  /** `valid()` writes to A's data (a photo to delete, an ad break to record): A is read again after it. */
  spends?: boolean;
  /** The valid request's answer when it is not a success (the one trial, spent in setup: 409). */
  validStatus?: number;
}

/**
 * One entry per route. A route without one fails the first test: the fuzzer cannot make a valid
 * request for it, and skipping it would be the silent gap this file exists to close.
 */
const FIXTURES: Record<string, Fixture> = {
  'GET /healthz': { as: 'nobody', valid: () => ({}) },
  'GET /readyz': { as: 'nobody', valid: () => ({}) },
  'GET /api/docs': { as: 'nobody', valid: () => ({}) },
  'GET /api/config': { as: 'nobody', valid: () => ({}) },
  'GET /api/auth/user': { as: 'A', valid: () => ({}) },
  'POST /api/auth/register': {
    as: 'nobody',
    valid: () =>
      json({ firstName: 'Fuzz', lastName: 'User', email: `fuzz${++serial}@example.com`, password: 'secret123' }),
  },
  'POST /api/auth/login': { as: 'nobody', valid: () => json({ email: spare.email, password: spare.password }) },
  'POST /api/auth/logout': { as: 'own session', valid: () => ({}) },
  'POST /api/auth/forgot-password': { as: 'nobody', valid: () => json({ email: resetUser.email }) },
  'POST /api/auth/reset-password': {
    as: 'nobody',
    async valid() {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/auth/forgot-password',
        payload: { email: resetUser.email },
        remoteAddress: nextAddress(),
      });
      const token = res.json().resetToken as string | undefined;
      if (!token) throw new Error(`no demo reset token: ${res.body}`);
      return json({ token, password: 'another-secret-1' });
    },
  },
  'POST /api/photos/delete': {
    as: 'A',
    spends: true,
    valid: async () => json({ ids: [await uploadFor(a, ++serial)] }),
  },
  'GET /api/photos/favorites': { as: 'A', valid: () => ({ query: { limit: '10' } }) },
  'PUT /api/photos/:id/favorite': { as: 'A', valid: () => ({ params: { id: a.photoId }, body: { favorite: true } }) },
  'GET /api/photos/:id/info': { as: 'A', valid: () => ({ params: { id: a.photoId } }) },
  'GET /api/photos/:id/download': {
    as: 'A',
    valid: () => ({ params: { id: a.photoId }, query: { version: 'original' } }),
  },
  'GET /api/photos': { as: 'A', valid: () => ({ query: { limit: '20' } }) },
  'GET /api/photos/summary': { as: 'A', valid: () => ({}) },
  'GET /api/photos/:id': { as: 'A', valid: () => ({ params: { id: a.photoId } }) },
  'GET /api/photos/:id/:variant': { as: 'A', valid: () => ({ params: { id: a.photoId, variant: 'thumbnail' } }) },
  'DELETE /api/photos/:id': {
    as: 'A',
    spends: true,
    valid: async () => ({ params: { id: await uploadFor(a, ++serial) } }),
  },
  'POST /api/photos': {
    as: 'A',
    async valid() {
      const m = multipart([{ name: `fuzz-${++serial}.jpg`, bytes: await jpeg(serial) }]);
      return { raw: { payload: m.payload, headers: m.headers } };
    },
  },
  'GET /api/photos/timeline': { as: 'A', valid: () => ({ query: { limit: '20', q: 'own' } }) },
  'GET /api/photos/duplicates': { as: 'A', valid: () => ({}) },
  'GET /api/photos/:id/similar': { as: 'A', valid: () => ({ params: { id: a.photoId } }) },
  'GET /api/photo-filters/available': { as: 'A', valid: () => ({ query: { photoId: a.photoId } }) },
  'GET /api/photo-filters/render': {
    as: 'A',
    valid: () => ({ query: { photoId: a.photoId, filterName: 'sunset', intensity: '80' } }),
  },
  'POST /api/photo-filters/preview': {
    as: 'A',
    valid: () => json({ photoId: a.photoId, filterName: 'dramatic', intensity: 70 }),
  },
  'POST /api/photo-filters/apply': {
    as: 'A',
    valid: () => json({ photoId: a.photoId, filterName: 'vibrant', intensity: 60 }),
  },
  'POST /api/photo-filters/revert': { as: 'A', valid: () => json({ photoId: a.photoId }) },
  'POST /api/photos/analyze-all': { as: 'A', valid: () => ({}) },
  'GET /api/photos/analysis-status': { as: 'A', valid: () => ({}) },
  'GET /api/albums': { as: 'A', valid: () => ({}) },
  'POST /api/albums': {
    as: 'A',
    valid: () => json({ name: `Fuzzed ${++serial}`, description: 'made by the fuzzer', photoIds: [a.photoId] }),
  },
  'GET /api/subscription': { as: 'A', valid: () => ({}) },
  // A's one trial is spent in setup (seedUser): the valid request reaches the service and is refused.
  'POST /api/subscription': { as: 'A', valid: () => json({ plan: 'monthly' }), validStatus: 409 },
  'POST /api/subscription/upgrade': {
    as: 'A',
    valid: () => json({ tier: 'premium', billingCycle: 'yearly', price: priceFor('premium', 'yearly') }),
  },
  'POST /api/subscription/cancel': { as: 'A', valid: () => ({}) },
  'POST /api/create-subscription': { as: 'A', valid: () => json({ tier: 'basic', billingCycle: 'monthly' }) },
  'GET /api/billing/invoices': { as: 'A', valid: () => ({}) },
  'POST /api/stripe/webhook': {
    as: 'nobody',
    valid() {
      // An event type the app does not act on: signed, so it is accepted, and changes nothing.
      const { payload, signature } = signedWebhook({
        type: 'customer.created',
        object: { id: 'cus_fuzz', object: 'customer' },
        id: `evt_fuzz_${++serial}`,
        created: Math.floor(t.clock.now().getTime() / 1000),
        secret: WEBHOOK_SECRET,
      });
      return {
        raw: { payload, headers: { 'content-type': 'application/json' }, tamperRefused: true },
        headers: { 'stripe-signature': signature },
      };
    },
  },
  'GET /api/rewards': { as: 'A', valid: () => ({}) },
  'POST /api/rewards/record': {
    as: 'A',
    valid: () => json({ type: 'login', utcOffsetMinutes: 0 }),
    coerced: ['utcOffsetMinutes'],
  },
  'GET /api/stats': { as: 'A', valid: () => ({ query: { utcOffsetMinutes: '60' } }) },
  'POST /api/ad-breaks': { as: 'A', valid: () => json({ app: 'YouTube' }) },
  'GET /api/activities': { as: 'A', valid: () => ({}) },
  'POST /api/activities': {
    as: 'A',
    spends: true,
    async valid() {
      const adBreak = await startAdBreak(t.app, a.cookie, 'Instagram');
      t.clock.advance(adBreak.durationSeconds * 1000);
      return {
        headers: { 'idempotency-key': adBreak.id },
        body: {
          app: 'Instagram',
          adDuration: adBreak.durationSeconds,
          gameData: { gameType: 'memory', score: 40, completed: true },
        },
      };
    },
  },
  'GET /api/app-status': { as: 'A', valid: () => ({}) },
  'POST /api/app-status/activate': {
    as: 'A',
    valid: () => json({ utcOffsetMinutes: 0 }),
    coerced: ['utcOffsetMinutes'],
  },
  'POST /api/app-status/deactivate': { as: 'A', valid: () => ({}) },
  'POST /api/app-status/heartbeat': { as: 'A', valid: () => ({}) },
};

const routeKey = (route: Pick<RouteEntry, 'method' | 'url'>) => `${route.method} ${route.url}`;

/** What a user sees of their own data: the answers the app's screens are drawn from. */
async function visible(user: SeededUser): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const url of [
    '/api/stats',
    '/api/rewards',
    '/api/photos?limit=200',
    '/api/photos/favorites?limit=200',
    '/api/photos/summary',
    '/api/albums',
    '/api/activities',
    '/api/subscription',
    '/api/app-status',
    '/api/auth/user',
  ]) {
    const res = await t.app.inject({ url, headers: { cookie: user.cookie } });
    out[url] = res.statusCode === 200 ? res.json() : `${res.statusCode} ${res.body}`;
  }
  return out;
}

let fingerprintTables: string[] | undefined;
const rowsOf = <T>(res: unknown) => (res as { rows: T[] }).rows;
/**
 * A digest of each table's rows of a user, in one statement (tables found in the catalogue, as
 * `userFingerprint` finds them, so a new table is included). Fingerprints of photos are made after
 * an upload's answer, once the server is quiet (not by the request judged), and are no
 * user-visible data: left out.
 */
async function stored(user: SeededUser): Promise<Record<string, string>> {
  fingerprintTables ??= rowsOf<{ table_name: string }>(
    await t.database.db.execute(sql`select table_name from information_schema.columns
      where table_schema = 'public' and column_name = 'user_id' and table_name <> 'photo_fingerprints'
      order by table_name`),
  ).map((row) => row.table_name);
  const rowsDigest = (from: SQL) =>
    sql`(select md5(coalesce(string_agg(x::text, '|' order by x::text), '')) from ${from})`;
  const id = user.user.id;
  const parts: Array<[string, SQL]> = [
    ...fingerprintTables.map((name): [string, SQL] => [
      name,
      rowsDigest(sql`${sql.identifier(name)} x where x.user_id = ${id}`),
    ]),
    ['album_photos', rowsDigest(sql`album_photos x join albums a on a.id = x.album_id where a.user_id = ${id}`)],
    ['photo_versions', rowsDigest(sql`photo_versions x join photos p on p.id = x.photo_id where p.user_id = ${id}`)],
    ['users', rowsDigest(sql`users x where x.id = ${id}`)],
  ];
  const select = sql.join(
    parts.map(([name, digest]) => sql`${digest} as ${sql.identifier(name)}`),
    sql`, `,
  );
  return rowsOf<Record<string, string>>(await t.database.db.execute(sql`select ${select}`))[0]!;
}

/** B's values A must never be shown (unless A's request itself named them, as a 404's path may). */
const bSecrets = () => [
  b.user.id,
  b.user.email,
  b.photoId,
  b.albumId,
  b.activityId,
  b.adBreakId,
  'Album 9173',
  'own-9173',
];

async function send(req: InjectOptions): Promise<LightMyRequestResponse | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), REQUEST_BOUND_MS);
  });
  try {
    return await Promise.race([t.app.inject(req), bound]);
  } finally {
    clearTimeout(timer);
  }
}

/** Why an answer is not the app's error format: JSON `{message}` a person can read. */
function unreadableError(res: LightMyRequestResponse): string | undefined {
  if (!String(res.headers['content-type'] ?? '').startsWith('application/json'))
    return `content-type ${String(res.headers['content-type'])}`;
  let message: unknown;
  try {
    message = (JSON.parse(res.body) as { message?: unknown }).message;
  } catch {
    return 'not JSON';
  }
  if (typeof message !== 'string' || !/[A-Za-z]{3}/.test(message)) return `message ${JSON.stringify(message)}`;
  if (message.length > 300) return `message of ${message.length} characters`;
  if (/\n\s+at |\[object Object\]|TypeError|ReferenceError|SQL|syntax error at/i.test(message))
    return `message ${JSON.stringify(message.slice(0, 120))}`;
  return undefined;
}

const foreignIds = () => [b.photoId, b.albumId, b.activityId, b.adBreakId, b.user.id];

describe('route fuzzer (seeded, every registered route)', () => {
  it('has a fixture for every route the app registers, and none for a route it does not', () => {
    const registered = t.app.routeTable.map(routeKey);
    // A floor, so a broken collector (an empty table) cannot pass vacuously.
    expect(registered.length).toBeGreaterThanOrEqual(45);
    expect(registered.filter((k) => !FIXTURES[k])).toEqual([]);
    expect(Object.keys(FIXTURES).filter((k) => !registered.includes(k))).toEqual([]);
  });

  it(`${CASES_PER_ROUTE} hostile requests per route: no 5xx, no hang, readable refusals, no change but by a valid request, nothing of B's`, async () => {
    const failures: string[] = [];
    const byStatus: Record<number, number> = {};
    const bSeenAtStart = await visible(b);
    let aSeen = await visible(a);
    let routeIndex = 0;
    for (const route of t.app.routeTable) {
      routeIndex += 1;
      const key = routeKey(route);
      const fixture = FIXTURES[key];
      if (!fixture) throw new Error(`no fixture for ${key}`);
      const reads = route.method === 'GET';
      const bStored = await stored(b);
      const aStoredAtStart = await stored(a);
      let aStored = aStoredAtStart;
      let aChanged = false;
      const r = rng(SEED + routeIndex);
      for (let i = 0; i < CASES_PER_ROUTE; i++) {
        const valid = await fixture.valid();
        if (fixture.spends) aStored = await stored(a);
        const c = fuzzCase({ ...route, bodySchema: route.schema?.body }, valid, r, { ids: foreignIds() }, i);
        const req = c.request;
        const headers: Record<string, string> = { ...(req.headers as Record<string, string>) };
        if (fixture.as === 'A') headers.cookie = a.cookie;
        if (fixture.as === 'own session') headers.cookie = await ownSession();
        const label = `${key} [${c.label}] ${String(req.method)} ${String(req.url).slice(0, 100)}`;
        const res = await send({ ...req, headers, remoteAddress: nextAddress() });
        if (res === 'timeout') {
          failures.push(`${label}: no answer in ${REQUEST_BOUND_MS} ms`);
          continue;
        }
        byStatus[res.statusCode] = (byStatus[res.statusCode] ?? 0) + 1;
        const ok = res.statusCode < 400;
        if (res.statusCode >= 500) failures.push(`${label}: ${res.statusCode} ${res.body.slice(0, 200)}`);
        else if (!ok) {
          const why = unreadableError(res);
          if (why) failures.push(`${label}: ${res.statusCode} not a readable error (${why})`);
        }
        if (c.message && !ok && messageOf(res) !== c.message)
          failures.push(`${label}: ${res.statusCode} said ${res.body.slice(0, 120)}, not ${JSON.stringify(c.message)}`);
        const missing = missingHeaders(res, String(req.url));
        if (missing) failures.push(`${label}: ${res.statusCode} without ${missing}`);
        if (i === 0 && !ok && res.statusCode !== fixture.validStatus)
          failures.push(`${label}: the valid request answered ${res.statusCode} ${res.body.slice(0, 200)}`);
        if (c.mustRefuse && ok && !(fixture.coerced ?? []).some((f) => c.label.startsWith(`${f}:`)))
          failures.push(`${label}: accepted (${res.statusCode}) ${res.body.slice(0, 160)}`);
        const sent = `${String(req.url)} ${String(req.payload ?? '')} ${JSON.stringify(req.headers ?? {})}`;
        const leaked = bSecrets().filter((s) => res.body.includes(s) && !sent.includes(s));
        if (leaked.length) failures.push(`${label}: answer holds B's ${leaked.join(', ')}`);
        if (process.env.FUZZ_DEBUG && (ok || process.env.FUZZ_DEBUG === 'all') && i > 0)
          console.log('answered', res.statusCode, label, res.statusCode >= 400 ? res.body.slice(0, 100) : '');
        if (!reads) {
          const now = await stored(a);
          const moved = diffKeys(aStored, now);
          if (moved.length && !ok)
            failures.push(`${label}: refused (${res.statusCode}) but changed A's ${moved.join(', ')}`);
          if (moved.length) aChanged = true;
          aStored = now;
        }
      }
      const bMoved = diffKeys(bStored, await stored(b));
      if (bMoved.length) failures.push(`${key}: B's stored ${bMoved.join(', ')} changed`);
      const bSeen = diffKeys(bSeenAtStart, await visible(b));
      if (bSeen.length) failures.push(`${key}: B sees ${bSeen.join(', ')} changed`);
      if (reads) {
        const moved = diffKeys(aStoredAtStart, await stored(a));
        if (moved.length) failures.push(`${key}: reads changed A's ${moved.join(', ')}`);
      }
      // What A sees moves only with a write that was answered as one.
      const aSeenNow = await visible(a);
      if (!aChanged) {
        const moved = diffKeys(aSeen, aSeenNow);
        if (moved.length) failures.push(`${key}: A sees ${moved.join(', ')} changed with nothing written`);
      }
      aSeen = aSeenNow;
    }
    if (process.env.FUZZ_DEBUG) console.log(byStatus);
    expect(failures).toEqual([]);
    // The mix is real: valid requests reached the services and hostile ones were refused.
    expect(Object.entries(byStatus).filter(([s]) => s.startsWith('2')).length).toBeGreaterThan(0);
    expect(byStatus[400]).toBeGreaterThan(300);
    expect(byStatus[404]).toBeGreaterThan(30);
    expect((await t.app.inject({ url: '/healthz' })).statusCode).toBe(200);
  }, 240_000);
});

function messageOf(res: LightMyRequestResponse): unknown {
  try {
    return (JSON.parse(res.body) as { message?: unknown }).message;
  } catch {
    return undefined;
  }
}

/** The headers every API answer carries (the security headers' hook and the cache policy), if any is missing. */
function missingHeaders(res: LightMyRequestResponse, url: string): string | undefined {
  if (!url.startsWith('/api/')) return undefined;
  const lacking = ['cache-control', 'x-content-type-options', 'content-security-policy'].filter(
    (h) => res.headers[h] === undefined,
  );
  return lacking.length ? lacking.join(', ') : undefined;
}

function diffKeys(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  return Object.keys({ ...before, ...after }).filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
}

/** A session of the spare account, for a case that may end the session it is sent with. */
async function ownSession(): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: spare,
    remoteAddress: nextAddress(),
  });
  return sessionCookieFrom(res);
}
