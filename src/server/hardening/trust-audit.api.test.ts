import { eq } from 'drizzle-orm';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { photos } from '../db/schema';
import { createFilterPool } from '../features/filters/filter-pool';
import { createFiltersRepository } from '../features/filters/filters.repository';
import { createFiltersService } from '../features/filters/filters.service';
import { createStorageCheck } from '../features/photos/index';
import { usedBytes } from '../features/photos/photos.repository';
import { DEFAULT_IN_FLIGHT_LIMITS, DEFAULT_RATE_LIMITS } from '../http/rate-limits';
import { createTestApp, signUp, type TestApp } from '../test/harness';
import { jpeg, multipart } from './support';

/**
 * Signed-in endpoints that cost the server real work or rows per call are bounded per user by the
 * default limits table: without a rule, one account could loop them for as long as it liked.
 */
const ruleOf = (route: string) => {
  const rule = DEFAULT_RATE_LIMITS[route]?.[0];
  if (!rule) throw new Error(`${route} has no limit`);
  return rule;
};

describe('trust: per-user limits on costly calls', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('attack: a render loop over filters and intensities is refused with 429 past the limit; other users are not', async () => {
    // Each miss decodes and filters a 1080 px image (~40 ms of CPU); POST /preview is limited,
    // and the GET it points at did the same work with none.
    const rule = ruleOf('GET /api/photo-filters/render');
    expect(rule.key).toBe('user');
    expect(rule.max).toBeLessThanOrEqual(600);
    const a = await signUp(t.app);
    const b = await signUp(t.app);
    const render = (cookie: string, intensity: number, etag?: string) =>
      t.app.inject({
        method: 'GET',
        url: `/api/photo-filters/render?photoId=demo&filterName=vintage&intensity=${intensity}&size=swatch`,
        headers: { cookie, ...(etag ? { 'if-none-match': etag } : {}) },
      });
    const first = await render(a.cookie, 100);
    expect(first.statusCode).toBe(200);
    const etag = String(first.headers.etag);
    // The rest of the window spent on revalidations (no image work), so the test stays fast.
    for (let i = 1; i < rule.max; i++) expect((await render(a.cookie, 100, etag)).statusCode).toBe(304);
    const refused = await render(a.cookie, 110);
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.json().message).toMatch(/Too many attempts/);
    expect(refused.headers['x-render-cache']).toBeUndefined();
    expect((await render(b.cookie, 110)).statusCode).toBe(200);
  });

  it('attack: album creation (up to 1,000 rows each) is refused with 429 past the limit, nothing more stored', async () => {
    const rule = ruleOf('POST /api/albums');
    expect(rule.key).toBe('user');
    expect(rule.max).toBeLessThanOrEqual(100);
    const a = await signUp(t.app);
    const photos = (await t.app.inject({ method: 'GET', url: '/api/photos', headers: { cookie: a.cookie } })).json();
    const photoIds = (photos as Array<{ id: string }>).map((p) => p.id);
    const create = (i: number) =>
      t.app.inject({
        method: 'POST',
        url: '/api/albums',
        headers: { cookie: a.cookie },
        payload: { name: `Album ${i}`, photoIds },
      });
    for (let i = 0; i < rule.max; i++) expect((await create(i)).statusCode).toBe(201);
    const refused = await create(rule.max);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().message).toMatch(/Too many attempts/);
    const listed = (await t.app.inject({ method: 'GET', url: '/api/albums', headers: { cookie: a.cookie } })).json();
    expect((listed as Array<{ isSmartAlbum: boolean }>).filter((x) => !x.isSmartAlbum)).toHaveLength(rule.max);
  });

  it('attack: the library-wide scans (duplicates, analyze all) are refused with 429 past their limits', async () => {
    const a = await signUp(t.app);
    for (const [method, url] of [
      ['GET', '/api/photos/duplicates'],
      ['POST', '/api/photos/analyze-all'],
    ] as const) {
      // Each call reads every fingerprint (or photo) of the library: unbounded, one large account
      // could keep the database busy for everyone.
      const rule = ruleOf(`${method} ${url}`);
      expect(rule.key).toBe('user');
      expect(rule.max).toBeLessThanOrEqual(60);
      const call = () => t.app.inject({ method, url, headers: { cookie: a.cookie } });
      for (let i = 0; i < rule.max; i++) expect((await call()).statusCode, url).toBe(200);
      const refused = await call();
      expect(refused.statusCode, url).toBe(429);
      expect(refused.json().message).toMatch(/Too many attempts/);
    }
  });

  it('attack: uploads held open at once are bounded per user (each holds its file in memory): the next is refused at once, other users are not', async () => {
    const max = DEFAULT_IN_FLIGHT_LIMITS['POST /api/photos'];
    expect(max).toBeLessThanOrEqual(3);
    const a = await signUp(t.app);
    const b = await signUp(t.app);
    const upload = (cookie: string, seed: number, stream?: PassThrough) =>
      jpeg(seed).then((bytes) => {
        const { payload, headers } = multipart([{ name: `held-${seed}.jpg`, bytes }]);
        if (stream) {
          // Sends the first bytes and holds the rest until the test ends the stream.
          stream.write(payload.subarray(0, 200));
          return {
            res: t.app.inject({ method: 'POST', url: '/api/photos', headers: { ...headers, cookie }, payload: stream }),
            rest: payload.subarray(200),
          };
        }
        return { res: t.app.inject({ method: 'POST', url: '/api/photos', headers: { ...headers, cookie }, payload }) };
      });
    const streams = Array.from({ length: max! }, () => new PassThrough());
    const held = await Promise.all(streams.map((s, i) => upload(a.cookie, 100 + i, s)));
    // Until every held upload has reached its handler (no timer: the server says so).
    for (let i = 0; i < 10_000 && t.app.ctx.activity.uploads < max!; i++) {
      await new Promise((r) => setImmediate(r));
    }
    expect(t.app.ctx.activity.uploads).toBe(max);

    const refused = await (await upload(a.cookie, 200)).res;
    expect(refused.statusCode).toBe(429);
    expect(refused.json().message).toMatch(/upload.*in progress/i);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await (await upload(b.cookie, 201)).res).statusCode).toBe(201);

    streams.forEach((s, i) => s.end(held[i]!.rest));
    for (const h of held) expect((await h.res).statusCode).toBe(201);
    // The finished uploads gave their places back.
    expect((await (await upload(a.cookie, 202)).res).statusCode).toBe(201);
  });
});

describe('trust: private answers are never stored by a cache', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it("an account's JSON (user, rewards, subscription, albums, errors) says private, no-store; answers with their own policy keep it", async () => {
    const a = await signUp(t.app);
    const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { cookie: a.cookie } });
    for (const url of ['/api/auth/user', '/api/rewards', '/api/subscription', '/api/albums', '/api/photos/nope']) {
      expect((await get(url)).headers['cache-control'], url).toBe('private, no-store');
    }
    expect((await t.app.inject({ method: 'GET', url: '/api/rewards' })).headers['cache-control']).toBe(
      'private, no-store',
    );
    // Revalidated or content-named answers: their own policy, still private.
    const page = await get('/api/photos?limit=5');
    expect(page.headers['cache-control']).toBe('private, no-cache');
    const thumb = page.json().items[0].thumbnailUrl as string;
    expect((await get(thumb)).headers['cache-control']).toBe('private, max-age=31536000, immutable');
  });
});

describe('trust: the storage quota holds when an edit and an upload race', () => {
  let t: TestApp;
  const pool = createFilterPool();
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await pool.close();
    await t.close();
  });

  it("attack: an upload landing between an apply's quota check and its write makes the apply 413, the quota kept", async () => {
    const a = await signUp(t.app);
    const upload = async (seed: number) => {
      const { payload, headers } = multipart([{ name: `q-${seed}.jpg`, bytes: await jpeg(seed, 400) }]);
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/photos',
        headers: { ...headers, cookie: a.cookie },
        payload,
      });
      expect(res.statusCode).toBe(201);
      return res.json().results[0].photo.id as string;
    };
    const photoId = await upload(1);
    const used = () => usedBytes(t.database.db, a.user.id);
    // Room for one more photo or the edit, not both (sizes measured, then the quota set from them).
    const repo = createFiltersRepository(t.database.db);
    const service = (racing: boolean) =>
      createFiltersService({
        repo: {
          ...repo,
          async insertCurrentVersion(...args: Parameters<typeof repo.insertCurrentVersion>) {
            if (racing) await upload(2);
            return repo.insertCurrentVersion(...args);
          },
        },
        blobs: t.app.ctx.blobs,
        pool,
        checkQuota: createStorageCheck({ repo, config: t.config, tierOf: async () => 'free' }),
      });
    const edit = { photoId, filterName: 'vintage' as const, intensity: 100 };
    const base = await used();
    await service(false).apply(a.user.id, edit);
    const versionBytes = (await used()) - base;
    await service(false).revert(a.user.id, photoId);
    const secondPhoto = (await jpeg(2, 400)).length;
    t.config.storageQuotaBytes = { free: base + Math.max(versionBytes, secondPhoto) + 10 };

    await expect(service(true).apply(a.user.id, edit)).rejects.toMatchObject({ statusCode: 413 });
    expect(await used()).toBeLessThanOrEqual(t.config.storageQuotaBytes.free!);
    const [row] = await t.database.db
      .select({ version: photos.currentVersionId })
      .from(photos)
      .where(eq(photos.id, photoId));
    expect(row!.version).toBeNull();
  });
});
