import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC_ROUTES, type RouteEntry } from '../http/route-table';
import { startStripeDouble, type StripeDouble } from '../features/payments/stripe-test-double';
import { createTestApp, type TestApp } from '../test/harness';
import {
  fillPath,
  jpeg,
  multipart,
  seedUser,
  stripeConfig,
  userFingerprint,
  validSample,
  recordFigure,
  type SeededUser,
} from './support';

/**
 * every endpoint in the route table (collected while the app builds, so a new endpoint
 * is covered without editing this file), called by user B with user A's ids, reads and writes
 * nothing of A's; a foreign resource is a 404; signed out, everything but the public list is 401.
 */
let t: TestApp;
let stripe: StripeDouble;
let a: SeededUser;
let b: SeededUser;
let routes: RouteEntry[];

beforeAll(async () => {
  stripe = await startStripeDouble();
  t = await createTestApp(stripeConfig(stripe.api));
  a = await seedUser(t.app, 1);
  b = await seedUser(t.app, 2);
  routes = t.app.routeTable;
});
afterAll(async () => {
  await t?.close();
  await stripe?.close();
});

/** Routes that start or end the caller's own session; they name no resource (auth tests cover them). */
const SESSION_ROUTES = new Set(['POST /api/auth/login', 'POST /api/auth/register', 'POST /api/auth/logout']);

/** A's id for a path parameter, chosen by the path segment before it (photos/:id -> A's photo). */
function aIdForSegment(segment: string, param: string): string {
  if (param === 'variant') return 'original';
  if (/album/.test(segment)) return a.albumId;
  if (/activit/.test(segment)) return a.activityId;
  if (/user/.test(segment)) return a.user.id;
  return a.photoId;
}
function aIdForField(field: string): string {
  if (/album/i.test(field)) return a.albumId;
  if (/activit/i.test(field)) return a.activityId;
  if (/user/i.test(field)) return a.user.id;
  if (/event/i.test(field)) return `matrix-${Math.random()}`;
  return a.photoId;
}

/** What must never appear in an answer to B: A's ids and email. */
const aSecrets = () => [a.user.id, a.user.email, a.photoId, a.albumId, a.activityId, a.adBreakId];

function requestFor(route: RouteEntry, cookie?: string) {
  const url = fillPath(route.url, aIdForSegment);
  const query = validSample(route.schema?.querystring, aIdForField) as Record<string, string> | undefined;
  const body = validSample(route.schema?.body, aIdForField);
  const qs = query ? '?' + new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])) : '';
  const headers: Record<string, string> = cookie ? { cookie } : {};
  return { method: route.method as 'GET', url: url + qs, headers, payload: body as object | undefined };
}

/** The route names a resource by id (path, query or body): B must get a 404 for A's. */
const namesResource = (route: RouteEntry, req: ReturnType<typeof requestFor>) =>
  route.url.includes(':') ||
  aSecrets().some((s) => req.url.includes(s) || JSON.stringify(req.payload ?? {}).includes(s));

describe('authorisation matrix (generated from the route table)', () => {
  it('covers every registered endpoint', () => {
    // A floor, so a broken collector (an empty table) cannot pass the matrix vacuously.
    expect(routes.length).toBeGreaterThanOrEqual(35);
    for (const p of PUBLIC_ROUTES) expect(routes.map((r) => `${r.method} ${r.url}`)).toContain(p);
  });

  it('user B calling every endpoint with user A ids: 404 for A resources, nothing of A read or written', async () => {
    const before = await userFingerprint(t.database.db, a.user.id);
    const report: string[] = [];
    let foreign = 0;
    for (const route of routes) {
      if (SESSION_ROUTES.has(`${route.method} ${route.url}`)) continue;
      let req = requestFor(route, b.cookie);
      if (route.method === 'POST' && route.url === '/api/photos') {
        const m = multipart([{ name: 'b.jpg', bytes: await jpeg(99) }]);
        req = { ...req, headers: { ...req.headers, ...m.headers }, payload: m.payload };
      }
      const res = await t.app.inject(req);
      if (process.env.MATRIX_DEBUG) console.log(route.method, req.url, res.statusCode, res.body.slice(0, 100));
      const leaked = aSecrets().filter((s) => res.body.includes(s));
      if (leaked.length) report.push(`${route.method} ${route.url} leaked ${leaked.join(', ')}`);
      if (res.statusCode >= 500) report.push(`${route.method} ${route.url} answered ${res.statusCode}`);
      if (namesResource(route, req) && !route.public) {
        foreign += 1;
        if (res.statusCode !== 404) report.push(`${route.method} ${req.url} answered ${res.statusCode}, not 404`);
        else expect(res.json().message, `${route.method} ${route.url}`).toEqual(expect.any(String));
      }
    }
    await recordFigure(
      '1 authorisation',
      'endpoints in route table / called by B / foreign-id calls (all 404)',
      `${routes.length} / ${routes.length - SESSION_ROUTES.size} / ${foreign}`,
    );
    await recordFigure(
      '1 authorisation',
      'cross-user leaks / writes to A',
      `${report.filter((x) => x.includes('leaked')).length} / ${JSON.stringify(await userFingerprint(t.database.db, a.user.id)) === JSON.stringify(before) ? 0 : 'CHANGED'}`,
    );
    expect(report).toEqual([]);
    expect(foreign).toBeGreaterThanOrEqual(8);
    expect(await userFingerprint(t.database.db, a.user.id)).toEqual(before);
  }, 120_000);

  it('A still sees and owns everything afterwards', async () => {
    const photo = await t.app.inject({ url: `/api/photos/${a.photoId}`, headers: { cookie: a.cookie } });
    expect(photo.statusCode).toBe(200);
    const albums = await t.app.inject({ url: '/api/albums', headers: { cookie: a.cookie } });
    expect(albums.json().map((x: { id: string }) => x.id)).toContain(a.albumId);
    const acts = await t.app.inject({ url: '/api/activities', headers: { cookie: a.cookie } });
    expect(acts.json().map((x: { id: string }) => x.id)).toContain(a.activityId);
  });

  it('signed out: 401 with a message on every endpoint except the declared public ones', async () => {
    const wrong: string[] = [];
    for (const route of routes) {
      const res = await t.app.inject(requestFor(route));
      if (route.public) {
        if (res.statusCode === 401) wrong.push(`${route.method} ${route.url} is public but answered 401`);
        if (res.statusCode >= 500) wrong.push(`${route.method} ${route.url} answered ${res.statusCode}`);
      } else if (res.statusCode !== 401 || typeof res.json().message !== 'string') {
        wrong.push(`${route.method} ${route.url} answered ${res.statusCode} signed out`);
      }
    }
    await recordFigure(
      '1 authorisation',
      'signed out: 401 / public',
      `${routes.filter((r) => !r.public).length} / ${routes.filter((r) => r.public).length}`,
    );
    expect(wrong).toEqual([]);
  });

  it("a forged or another user's cookie value is not a session", async () => {
    for (const cookie of ['eyevu_session=forged', `eyevu_session=${a.user.id}`, 'eyevu_session=']) {
      const res = await t.app.inject({ url: '/api/auth/user', headers: { cookie } });
      expect(res.statusCode).toBe(401);
    }
  });
});
