import sharp from 'sharp';
import { photoPage } from '@contract/photos';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { buildApp } from '../../app';
import { openDatabase, type Database } from '../../db/client';
import { LISTENER_NAME } from '../../db/notifications';
import { createTestApp, signUp, testDbKind, type TestApp } from '../../test/harness';
import { createAnalysisRepository } from '../analysis/analysis.repository';
import { createAnalysisWorker } from '../analysis/analysis.worker';
import { postPhotos } from '../../test/multipart';

const jpeg = (seed: number) =>
  sharp({ create: { width: 64 + seed, height: 48, channels: 3, background: { r: seed % 256, g: 40, b: 90 } } })
    .jpeg()
    .toBuffer();

const FIRST_PAGES = ['/api/photos?limit=50', '/api/photos', '/api/photos/timeline?limit=50'];

type Item = { id: string; favorite: boolean; albumId: string | null; category: string | null; appliedFilter: unknown };
const itemsOf = (body: string): Item[] => {
  const json = JSON.parse(body) as Item[] | { items: Item[] };
  return Array.isArray(json) ? json : json.items;
};

/**
 * Watches the database reads of `database`'s pool: `versionReads()` counts the separate library
 * version reads (the named statement of photos.repository.ts `libraryState`) made since,
 * `pageBuilds()` the reads of a photos first page (`firstPage`).
 */
function watchReads(database: Database) {
  const pool = (database.db as unknown as { $client: pg.Pool }).$client;
  const spy = vi.spyOn(pool, 'query');
  const named = (name: string) =>
    spy.mock.calls.filter(([q]) => typeof q === 'object' && (q as { name?: string }).name === name).length;
  const textOf = (q: unknown) => (typeof q === 'string' ? q : String((q as { text?: string } | null)?.text ?? ''));
  return {
    versionReads: () => named('photo_library_state'),
    /** Statements that read the library (photos, their versions, the library row), named or not. */
    libraryReads: () =>
      spy.mock.calls.filter(([q]) => /"(?:photos|photo_versions|photo_library)"/.test(textOf(q))).length,
    pageBuilds: () => named('photos_first_page_state'),
    restore: () => spy.mockRestore(),
  };
}

/** How long another instance may take to hear of a write (a notification; far less on an idle machine). */
const NOTIFIED = { timeout: 10_000, interval: 20 };

function get(app: FastifyInstance, cookie: string, url: string, headers: Record<string, string> = {}) {
  return app.inject({ method: 'GET', url, headers: { cookie, ...headers } });
}

describe(`cached first gallery pages (${testDbKind})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const post = (cookie: string, url: string, payload: object) =>
    t.app.inject({ method: 'POST', url, headers: { cookie }, payload });

  it('answers each first page with a strong ETag (304 on a repeat) and in brotli or gzip decoding to the same JSON', async () => {
    const { cookie } = await signUp(t.app);
    for (const url of FIRST_PAGES) {
      const plain = await get(t.app, cookie, url);
      expect(plain.statusCode).toBe(200);
      expect(plain.headers['content-type']).toMatch(/^application\/json/);
      expect(plain.headers['cache-control']).toBe('private, no-cache');
      const etag = String(plain.headers.etag);
      expect(etag).toMatch(/^"[^"]+"$/);
      expect(itemsOf(plain.body)).toHaveLength(10);

      const again = await get(t.app, cookie, url, { 'if-none-match': etag });
      expect(again.statusCode).toBe(304);
      expect(again.body).toBe('');
      expect(again.headers.etag).toBe(etag);

      for (const [encoding, decode] of [
        ['br', brotliDecompressSync],
        ['gzip', gunzipSync],
      ] as const) {
        const packed = await get(t.app, cookie, url, { 'accept-encoding': `${encoding}, identity;q=0.5` });
        expect(packed.headers['content-encoding']).toBe(encoding);
        expect(packed.headers.vary).toMatch(/Accept-Encoding/);
        expect(packed.rawPayload.length).toBeLessThan(plain.rawPayload.length / 2);
        expect(decode(packed.rawPayload).toString()).toBe(plain.body);
        expect(packed.headers.etag).not.toBe(etag);
        const revalidated = await get(t.app, cookie, url, {
          'accept-encoding': encoding,
          'if-none-match': String(packed.headers.etag),
        });
        expect(revalidated.statusCode).toBe(304);
      }
    }
  });

  it("a page served from memory at once carries the full route's headers (security headers included) and bytes", async () => {
    const { cookie } = await signUp(t.app);
    const withoutDate = (h: Record<string, unknown>) => ({ ...h, date: undefined });
    for (const url of FIRST_PAGES.slice(0, 2)) {
      for (const headers of [{}, { 'accept-encoding': 'br' }, { 'accept-encoding': 'gzip, deflate' }] as Record<
        string,
        string
      >[]) {
        // The first answer is the route's (the page or its compressed copy is made then).
        const full = await get(t.app, cookie, url, headers);
        const once = await get(t.app, cookie, url, headers);
        expect(full.statusCode).toBe(200);
        expect(full.headers['content-security-policy']).toBeTruthy();
        expect(withoutDate(once.headers)).toEqual(withoutDate(full.headers));
        expect(once.rawPayload.equals(full.rawPayload)).toBe(true);
      }
    }
    // Asked in ways the early answer leaves to the route: the same page and ETag.
    const plain = await get(t.app, cookie, '/api/photos?limit=50');
    expect((await get(t.app, cookie, '/api/photos?limit=050')).headers.etag).toBe(plain.headers.etag);
    expect((await get(t.app, cookie, '/api/photos?limit=50&limit=50')).statusCode).toBe(400);
    expect((await get(t.app, cookie, '/api/photos?limit=201')).statusCode).toBe(400);
    expect((await get(t.app, cookie, '/api/photos?limit=0')).statusCode).toBe(400);
  });

  it('builds a first page in one statement that shows the same photos as the single-photo answer, with a cursor to the rest', async () => {
    const { cookie } = await signUp(t.app);
    const ids = itemsOf((await get(t.app, cookie, '/api/photos?limit=50')).body).map((p) => p.id);
    expect(
      (await post(cookie, '/api/photo-filters/apply', { photoId: ids[1], filterName: 'black_white', intensity: 60 }))
        .statusCode,
    ).toBe(200);
    await t.app.inject({
      method: 'PUT',
      url: `/api/photos/${ids[2]}/favorite`,
      headers: { cookie },
      payload: { favorite: true },
    });
    // Cold (made again) and cached: the same bytes and ETag.
    const cold = await get(t.app, cookie, '/api/photos?limit=3', { 'cache-control': 'no-cache' });
    const cached = await get(t.app, cookie, '/api/photos?limit=3');
    expect(cached.body).toBe(cold.body);
    expect(cached.headers.etag).toBe(cold.headers.etag);
    const page = JSON.parse(cold.body) as { items: Item[]; nextCursor: string; total: number };
    expect(page.total).toBe(10);
    for (const item of page.items) {
      expect(item).toEqual((await get(t.app, cookie, `/api/photos/${item.id}`)).json());
    }
    expect(page.items[1]!.appliedFilter).toEqual({ filterName: 'black_white', intensity: 60 });
    expect(page.items[2]!.favorite).toBe(true);
    const rest = JSON.parse((await get(t.app, cookie, `/api/photos?limit=50&cursor=${page.nextCursor}`)).body);
    expect([...page.items, ...rest.items].map((p: Item) => p.id)).toEqual(ids);
    const list = JSON.parse((await get(t.app, cookie, '/api/photos', { 'cache-control': 'no-cache' })).body) as Item[];
    expect(list.slice(0, 3)).toEqual(page.items);

    // A library emptied of every photo still answers its version's page.
    expect((await post(cookie, '/api/photos/delete', { ids })).statusCode).toBe(200);
    for (const headers of [{}, { 'cache-control': 'no-cache' }] as Record<string, string>[]) {
      const empty = await get(t.app, cookie, '/api/photos?limit=3', headers);
      expect(JSON.parse(empty.body)).toEqual({ items: [], nextCursor: null, total: 0 });
      expect(
        (await get(t.app, cookie, '/api/photos?limit=3', { 'if-none-match': String(empty.headers.etag) })).statusCode,
      ).toBe(304);
    }
  });

  it('compresses other JSON answers, never image bytes', async () => {
    const { cookie } = await signUp(t.app);
    // A later page: not one of the cached first pages.
    const { nextCursor } = JSON.parse((await get(t.app, cookie, '/api/photos?limit=2')).body);
    const url = `/api/photos?limit=6&cursor=${nextCursor}`;
    const plain = await get(t.app, cookie, url);
    expect(plain.rawPayload.length).toBeGreaterThan(1024);
    const gz = await get(t.app, cookie, url, { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(plain.body);

    const [photo] = itemsOf((await get(t.app, cookie, '/api/photos?limit=1')).body) as Array<
      Item & { thumbnailUrl: string }
    >;
    const image = await get(t.app, cookie, photo!.thumbnailUrl, { 'accept-encoding': 'br, gzip' });
    expect(image.statusCode).toBe(200);
    expect(image.headers['content-encoding']).toBeUndefined();
    expect(image.rawPayload.equals((await get(t.app, cookie, photo!.thumbnailUrl)).rawPayload)).toBe(true);
  });

  it('every write that changes the page changes its ETag and its body', async () => {
    const { cookie, user } = await signUp(t.app);
    let last = new Map<string, { etag: string; body: string }>();
    const read = async () => {
      const now = new Map<string, { etag: string; body: string }>();
      for (const url of FIRST_PAGES) {
        const res = await get(t.app, cookie, url);
        expect(res.statusCode).toBe(200);
        now.set(url, { etag: String(res.headers.etag), body: res.body });
      }
      return now;
    };
    /** After a write: every first page has a new ETag and a new body, and the old ETag no longer answers 304. */
    const expectChanged = async (write: string) => {
      const now = await read();
      for (const url of FIRST_PAGES) {
        const before = last.get(url)!;
        expect({ write, url, etag: now.get(url)!.etag }).not.toEqual({ write, url, etag: before.etag });
        expect({ write, url, changed: now.get(url)!.body !== before.body }).toEqual({ write, url, changed: true });
        expect((await get(t.app, cookie, url, { 'if-none-match': before.etag })).statusCode).toBe(200);
      }
      last = now;
      return itemsOf(now.get('/api/photos?limit=50')!.body);
    };
    last = await read();

    const up = await postPhotos(t.app, cookie, [{ name: 'new.jpg', bytes: await jpeg(1) }]);
    expect(up.statusCode).toBe(201);
    const id = up.json().results[0].photo.id as string;
    let items = await expectChanged('upload');
    expect(items[0]!.id).toBe(id);
    expect(JSON.parse(last.get('/api/photos?limit=50')!.body).total).toBe(11);

    const fav = await t.app.inject({
      method: 'PUT',
      url: `/api/photos/${id}/favorite`,
      headers: { cookie },
      payload: { favorite: true },
    });
    expect(fav.statusCode).toBe(200);
    items = await expectChanged('favourite');
    expect(items.find((p) => p.id === id)!.favorite).toBe(true);

    expect(
      (await post(cookie, '/api/photo-filters/apply', { photoId: id, filterName: 'black_white', intensity: 100 }))
        .statusCode,
    ).toBe(200);
    items = await expectChanged('filter apply');
    expect(items.find((p) => p.id === id)!.appliedFilter).toEqual({ filterName: 'black_white', intensity: 100 });
    expect((await post(cookie, '/api/photo-filters/revert', { photoId: id })).statusCode).toBe(200);
    items = await expectChanged('filter revert');
    expect(items.find((p) => p.id === id)!.appliedFilter).toBeNull();

    const analysis = createAnalysisRepository(t.app.ctx.db);
    await analysis.enqueueUnanalysed(user.id);
    await createAnalysisWorker({
      repo: analysis,
      blobs: t.app.ctx.blobs,
      analyze: async () => ({ category: 'food_drink', tags: ['red'], description: 'A test photo', faceCount: 0 }),
      retryDelayMs: 0,
    }).drain();
    items = await expectChanged('analysis result');
    expect(items.every((p) => p.category === 'food_drink')).toBe(true);

    const album = await post(cookie, '/api/albums', { name: 'Trip', photoIds: [id] });
    expect(album.statusCode).toBe(201);
    items = await expectChanged('album');
    expect(items.find((p) => p.id === id)!.albumId).toBe(album.json().id);

    expect((await t.app.inject({ method: 'DELETE', url: `/api/photos/${id}`, headers: { cookie } })).statusCode).toBe(
      200,
    );
    items = await expectChanged('delete');
    expect(items.map((p) => p.id)).not.toContain(id);

    const two = items.slice(0, 2).map((p) => p.id);
    expect((await post(cookie, '/api/photos/delete', { ids: two })).statusCode).toBe(200);
    items = await expectChanged('delete many');
    expect(items).toHaveLength(8);
    expect(JSON.parse(last.get('/api/photos/timeline?limit=50')!.body).total).toBe(8);
  });

  it("never serves one user's page to another, whatever ETag they send", async () => {
    const a = await signUp(t.app);
    const b = await signUp(t.app);
    for (const url of FIRST_PAGES) {
      const mine = await get(t.app, a.cookie, url);
      const theirs = await get(t.app, b.cookie, url, { 'if-none-match': String(mine.headers.etag) });
      expect(theirs.statusCode).toBe(200);
      expect(theirs.headers.etag).not.toBe(mine.headers.etag);
      const aIds = new Set(itemsOf(mine.body).map((p) => p.id));
      expect(itemsOf(theirs.body).some((p) => aIds.has(p.id))).toBe(false);
    }
    expect((await get(t.app, '', FIRST_PAGES[0]!)).statusCode).toBe(401);
  });

  it("no-cache requests get the page checked against the library's version: a burst builds nothing, a burst after a write shares one build that shows it, and no user gets another's page", async () => {
    const a = await signUp(t.app);
    const b = await signUp(t.app);
    const urls = FIRST_PAGES.slice(0, 2);
    const idsOf = new Map<string, Set<string>>();
    for (const u of [a, b]) {
      idsOf.set(u.cookie, new Set(itemsOf((await get(t.app, u.cookie, urls[0]!)).body).map((p) => p.id)));
      for (const url of urls) await get(t.app, u.cookie, url);
    }
    const noCache = { 'cache-control': 'no-cache', pragma: 'no-cache' };
    const burst = (cookie: string) =>
      Promise.all(urls.flatMap((url) => Array.from({ length: 20 }, () => get(t.app, cookie, url, noCache))));
    const own = (cookie: string, answers: Awaited<ReturnType<typeof burst>>) => {
      for (const res of answers) {
        expect(res.statusCode).toBe(200);
        expect(itemsOf(res.body).every((p) => idsOf.get(cookie)!.has(p.id))).toBe(true);
      }
    };
    const reads = watchReads(t.database);
    try {
      const [ra, rb] = await Promise.all([burst(a.cookie), burst(b.cookie)]);
      own(a.cookie, ra);
      own(b.cookie, rb);
      expect(reads.pageBuilds()).toBe(0);

      const [first] = itemsOf(ra[0]!.body);
      const fav = await t.app.inject({
        method: 'PUT',
        url: `/api/photos/${first!.id}/favorite`,
        headers: { cookie: a.cookie },
        payload: { favorite: true },
      });
      expect(fav.statusCode).toBe(200);
      const [after, untouched] = await Promise.all([burst(a.cookie), burst(b.cookie)]);
      own(a.cookie, after);
      own(b.cookie, untouched);
      for (const res of after) expect(itemsOf(res.body).find((p) => p.id === first!.id)!.favorite).toBe(true);
      // One build per page changed (the list and the page of 50), shared by its twenty requests.
      expect(reads.pageBuilds()).toBeLessThanOrEqual(urls.length * 2);
      expect(reads.pageBuilds()).toBeGreaterThanOrEqual(urls.length);
      expect(new Set(untouched.map((r) => r.headers.etag)).size).toBe(urls.length);
    } finally {
      reads.restore();
    }
  });

  it('a page after the first (a cursor) is one statement: its rows, their applied filters and the total, written as the schema writes it', async () => {
    const { cookie } = await signUp(t.app);
    const all = itemsOf((await get(t.app, cookie, '/api/photos?limit=10')).body);
    expect(all).toHaveLength(10);
    const filtered = all[6]!;
    const applied = await post(cookie, '/api/photo-filters/apply', {
      photoId: filtered.id,
      filterName: 'black_white',
      intensity: 60,
    });
    expect(applied.statusCode).toBe(200);
    const first = JSON.parse((await get(t.app, cookie, '/api/photos?limit=4')).body) as { nextCursor: string };
    const reads = watchReads(t.database);
    try {
      const next = `/api/photos?limit=4&cursor=${encodeURIComponent(first.nextCursor)}`;
      const res = await get(t.app, cookie, next);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      const page = JSON.parse(res.body) as { items: Item[]; total: number; nextCursor: string | null };
      expect(page.items.map((p) => p.id)).toEqual(all.slice(4, 8).map((p) => p.id));
      expect(page.total).toBe(10);
      expect(page.items.find((p) => p.id === filtered.id)!.appliedFilter).toEqual({
        filterName: 'black_white',
        intensity: 60,
      });
      // Byte for byte what the route's response schema would have written.
      expect(res.body).toBe(JSON.stringify(photoPage.parse(page)));
      // Rows, applied versions and the total in one statement (were three: rows, versions, state).
      expect(reads.libraryReads()).toBe(1);

      const last = await get(t.app, cookie, `/api/photos?limit=4&cursor=${encodeURIComponent(page.nextCursor!)}`);
      const end = JSON.parse(last.body) as { items: Item[]; total: number; nextCursor: string | null };
      expect([end.items.map((p) => p.id), end.total, end.nextCursor]).toEqual([
        all.slice(8).map((p) => p.id),
        10,
        null,
      ]);
      // Past the last photo: no rows to carry the total, which is read on its own.
      const bottom = Buffer.from(JSON.stringify(['1970-01-01T00:00:00Z', '00000000-0000-0000-0000-000000000000']));
      const past = await get(t.app, cookie, `/api/photos?limit=4&cursor=${bottom.toString('base64url')}`);
      expect(JSON.parse(past.body)).toEqual({ items: [], nextCursor: null, total: 10 });
    } finally {
      reads.restore();
    }
  });

  it('a cached page and its 304 read nothing from the database; the next request after a write shows it, still without a version read; a lost connection makes it read again', async () => {
    const { cookie } = await signUp(t.app);
    const reads = watchReads(t.database);
    try {
      const tags = new Map<string, string>();
      for (const url of FIRST_PAGES) tags.set(url, String((await get(t.app, cookie, url)).headers.etag));
      for (const url of FIRST_PAGES) {
        expect((await get(t.app, cookie, url, { 'if-none-match': tags.get(url)! })).statusCode).toBe(304);
        expect((await get(t.app, cookie, url)).headers.etag).toBe(tags.get(url));
      }
      expect(reads.versionReads()).toBe(0);

      const [first] = itemsOf((await get(t.app, cookie, FIRST_PAGES[0]!)).body);
      const fav = await t.app.inject({
        method: 'PUT',
        url: `/api/photos/${first!.id}/favorite`,
        headers: { cookie },
        payload: { favorite: true },
      });
      expect(fav.statusCode).toBe(200);
      // The write's own notification arrived before it was answered: the very next request knows.
      for (const url of FIRST_PAGES) {
        const seen = await get(t.app, cookie, url, { 'if-none-match': tags.get(url)! });
        expect(seen.statusCode).toBe(200);
        expect(itemsOf(seen.body).find((p) => p.id === first!.id)!.favorite).toBe(true);
      }
      expect(reads.versionReads()).toBe(0);

      // A connection lost mid-statement may have committed a write it never heard of: what was
      // known is dropped, and the next request reads the version.
      const pool = (t.database.db as unknown as { $client: pg.Pool }).$client;
      const lost = await pool.connect();
      lost.emit('error', new Error('Connection terminated unexpectedly'));
      lost.release(true);
      expect((await get(t.app, cookie, FIRST_PAGES[0]!)).statusCode).toBe(200);
      expect(reads.versionReads()).toBe(1);
      expect((await get(t.app, cookie, FIRST_PAGES[0]!)).statusCode).toBe(200);
      expect(reads.versionReads()).toBe(1);
    } finally {
      reads.restore();
    }
  });

  it('two app instances on one database: a write through one is seen through the other once notified, and a request while the other is not listening reads the database', async () => {
    // A second process would open its own connections; PGlite in memory is one per process, so shared.
    const second: Database =
      testDbKind === 'postgres' ? await openDatabase({ databaseUrl: t.database.url!, pgliteDir: '' }) : t.database;
    const other = await buildApp(t.config, { database: second });
    await other.ready();
    const reads = watchReads(second);
    try {
      await vi.waitFor(() => expect(second.notifications.listening).toBe(true), NOTIFIED);
      const { cookie } = await signUp(t.app);
      const url = FIRST_PAGES[0]!;
      const cached = await get(other, cookie, url);
      expect((await get(other, cookie, url, { 'if-none-match': String(cached.headers.etag) })).statusCode).toBe(304);
      const [first, second_] = itemsOf(cached.body);
      const readsBefore = reads.versionReads();

      await t.app.inject({
        method: 'PUT',
        url: `/api/photos/${first!.id}/favorite`,
        headers: { cookie },
        payload: { favorite: true },
      });
      // On PostgreSQL the other process hears of it when the notification arrives, a moment later.
      const seen = await vi.waitFor(async () => {
        const res = await get(other, cookie, url, { 'if-none-match': String(cached.headers.etag) });
        expect(res.statusCode).toBe(200);
        return res;
      }, NOTIFIED);
      expect(itemsOf(seen.body)[0]!.favorite).toBe(true);
      expect(reads.versionReads()).toBe(readsBefore);

      // And back: a delete through the second is seen through the first, total included.
      const before = await get(t.app, cookie, url);
      expect(
        (await other.inject({ method: 'DELETE', url: `/api/photos/${first!.id}`, headers: { cookie } })).statusCode,
      ).toBe(200);
      const after = await vi.waitFor(async () => {
        const res = await get(t.app, cookie, url, { 'if-none-match': String(before.headers.etag) });
        expect(res.statusCode).toBe(200);
        return JSON.parse(res.body) as { items: Item[]; total: number };
      }, NOTIFIED);
      expect(after.items.map((p) => p.id)).not.toContain(first!.id);
      expect(after.total).toBe(9);

      if (testDbKind !== 'postgres') return;
      // The listening connections lost: until theirs is back, the other instance reads the version
      // for each request (and forgets what it knew), so a write it could not hear of is still seen.
      const known = await get(other, cookie, url);
      const lost = new Promise<void>((resolve) =>
        second.notifications.subscribe('eyevu_photo_library', {
          message: () => {},
          listening: (up) => !up && resolve(),
        }),
      );
      const admin = (t.database.db as unknown as { $client: pg.Pool }).$client;
      await admin.query(
        'select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1 and datname = current_database()',
        [LISTENER_NAME],
      );
      await lost;
      const readsAtLoss = reads.versionReads();
      await t.app.inject({
        method: 'PUT',
        url: `/api/photos/${second_!.id}/favorite`,
        headers: { cookie },
        payload: { favorite: true },
      });
      const fresh = await get(other, cookie, url, { 'if-none-match': String(known.headers.etag) });
      expect(fresh.statusCode).toBe(200);
      expect(itemsOf(fresh.body).find((p) => p.id === second_!.id)!.favorite).toBe(true);
      expect(reads.versionReads()).toBeGreaterThan(readsAtLoss);
    } finally {
      reads.restore();
      await other.close();
      if (second !== t.database) await second.close();
    }
  });
});
