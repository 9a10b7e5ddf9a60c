import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMITS, type RateLimitTable } from '../../http/rate-limits';
import { createTestApp, signUp, testDbKind, type TestApp } from '../../test/harness';

/**
 * The library's costly calls are limited per user, by the rules of the real table with only the
 * counts made small; the cheap uses of the same URLs (first pages and their repeats, thumbnails)
 * are never counted.
 */
const LIMITED = [
  'GET /api/photos',
  'GET /api/photos/timeline',
  'GET /api/photos/:id/:variant',
  'GET /api/photos/:id/similar',
  'POST /api/photos/delete',
  'DELETE /api/photos/:id',
  'PUT /api/photos/:id/favorite',
] as const;
const MAX = 2;
const small: RateLimitTable = {
  ...DEFAULT_RATE_LIMITS,
  ...Object.fromEntries(LIMITED.map((k) => [k, DEFAULT_RATE_LIMITS[k]!.map((r) => ({ ...r, max: MAX }))])),
};

let t: TestApp;
/** Signed up once (password hashing is slow by design); each rule keeps its own count per user. */
const users: Array<{ cookie: string }> = [];
beforeAll(async () => {
  t = await createTestApp({ rateLimits: small });
  for (let i = 0; i < 2; i++) users.push(await signUp(t.app));
});
afterAll(() => t?.close());

const get = (cookie: string, url: string) => t.app.inject({ method: 'GET', url, headers: { cookie } });
const send = (cookie: string, method: 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
  t.app.inject({ method, url, headers: { cookie, 'content-type': 'application/json' }, payload: payload ?? {} });

async function library(cookie: string): Promise<string[]> {
  const res = await get(cookie, '/api/photos');
  expect(res.statusCode).toBe(200);
  return (res.json() as Array<{ id: string }>).map((p) => p.id);
}

function expectLimited(res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }) {
  expect(res.statusCode).toBe(429);
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  expect((res.json() as { message: string }).message).toMatch(/^Too many attempts\./);
}

describe(`per-user limits on the library's costly calls (${testDbKind})`, () => {
  it('every costly call of the library has a per-user rule in the default table', () => {
    for (const k of LIMITED) {
      expect(DEFAULT_RATE_LIMITS[k]?.length, k).toBeGreaterThan(0);
      for (const r of DEFAULT_RATE_LIMITS[k]!) expect(r.key, k).toBe('user');
    }
  });

  it('searches are counted, a first page is not; one user never spends another’s budget', async () => {
    const [a, b] = [users[0]!, users[1]!];
    for (let i = 0; i < MAX; i++) expect((await get(a.cookie, `/api/photos/timeline?q=dog${i}`)).statusCode).toBe(200);
    expectLimited(await get(a.cookie, '/api/photos/timeline?q=cat'));
    for (let i = 0; i < MAX + 3; i++)
      expect((await get(a.cookie, '/api/photos/timeline?limit=2')).statusCode).toBe(200);
    expect((await get(b.cookie, '/api/photos/timeline?q=cat')).statusCode).toBe(200);
  });

  it.each(['/api/photos', '/api/photos/timeline'])(
    'pages after the first of %s are counted (each is built for its request), the first page never',
    async (url) => {
      const [a, b] = [users[0]!, users[1]!];
      const first = await get(a.cookie, `${url}?limit=2`);
      expect(first.statusCode).toBe(200);
      const cursor = (first.json() as { nextCursor: string | null }).nextCursor;
      expect(cursor).toBeTruthy();
      const next = `${url}?limit=2&cursor=${encodeURIComponent(cursor!)}`;
      for (let i = 0; i < MAX; i++) expect((await get(a.cookie, next)).statusCode).toBe(200);
      expectLimited(await get(a.cookie, next));
      for (let i = 0; i < MAX + 2; i++) expect((await get(a.cookie, `${url}?limit=2`)).statusCode).toBe(200);
      expect((await get(b.cookie, next)).statusCode).not.toBe(429);
    },
  );

  it('display renditions are counted, thumbnails and previews are not', async () => {
    const a = users[0]!;
    const [id] = await library(a.cookie);
    for (let i = 0; i < MAX; i++) expect((await get(a.cookie, `/api/photos/${id}/display`)).statusCode).toBe(200);
    expectLimited(await get(a.cookie, `/api/photos/${id}/display`));
    for (let i = 0; i < MAX + 2; i++) {
      expect((await get(a.cookie, `/api/photos/${id}/thumbnail`)).statusCode).toBe(200);
      expect((await get(a.cookie, `/api/photos/${id}/preview`)).statusCode).toBe(200);
    }
  });

  it('similar photos, favourites and deletes are limited, and a refused delete deletes nothing', async () => {
    const a = users[0]!;
    const ids = await library(a.cookie);
    for (let i = 0; i < MAX; i++) expect((await get(a.cookie, `/api/photos/${ids[0]}/similar`)).statusCode).toBe(200);
    expectLimited(await get(a.cookie, `/api/photos/${ids[0]}/similar`));

    for (let i = 0; i < MAX; i++) {
      const fav = await send(a.cookie, 'PUT', `/api/photos/${ids[0]}/favorite`, { favorite: i % 2 === 0 });
      expect(fav.statusCode).toBe(200);
    }
    expectLimited(await send(a.cookie, 'PUT', `/api/photos/${ids[0]}/favorite`, { favorite: true }));

    for (let i = 0; i < MAX; i++) {
      expect((await send(a.cookie, 'POST', '/api/photos/delete', { ids: [ids[i]] })).statusCode).toBe(200);
    }
    expectLimited(await send(a.cookie, 'POST', '/api/photos/delete', { ids: [ids[2]] }));
    expect(await library(a.cookie)).toContain(ids[2]);
  });
});
