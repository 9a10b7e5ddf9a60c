import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import sharp from 'sharp';
import { FILTER_IDS } from '@domain/filters';
import { photos, photoVersions } from '../../db/schema';
import { createTestApp, signUp, testDbKind, type TestApp } from '../../test/harness';
import { postPhotos } from '../../test/multipart';
import type { FilterPool } from './filter-pool';
import { createFiltersRepository } from './filters.repository';
import { createFiltersService } from './filters.service';

const hash = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A colourful 600 x 400 JPEG with EXIF orientation 6 (shown as 400 x 600). */
async function rotatedJpeg(): Promise<Buffer> {
  const raw = await sharp({ create: { width: 600, height: 400, channels: 3, background: { r: 40, g: 120, b: 200 } } })
    .composite([
      {
        input: { create: { width: 200, height: 200, channels: 3, background: { r: 230, g: 60, b: 40 } } },
        top: 50,
        left: 50,
      },
    ])
    .png()
    .toBuffer();
  return sharp(raw).jpeg({ quality: 90 }).withMetadata({ orientation: 6 }).toBuffer();
}

describe(`photo filters API (${testDbKind})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const get = (cookie: string, url: string) => t.app.inject({ method: 'GET', url, headers: { cookie } });
  const post = (cookie: string, url: string, payload: unknown) =>
    t.app.inject({ method: 'POST', url, headers: { cookie }, payload: payload as object });
  const blobKeys = async () => {
    const keys = new Set<string>();
    for await (const b of t.app.ctx.blobs.list()) keys.add(b.key);
    return keys;
  };
  const versionsOf = (photoId: string) =>
    t.database.db.select().from(photoVersions).where(eq(photoVersions.photoId, photoId));
  const rowOf = async (photoId: string) =>
    (await t.database.db.select().from(photos).where(eq(photos.id, photoId)))[0]!;
  /** What each of the photo's URLs serves, hashed. */
  const served = async (cookie: string, photoId: string) => {
    const p = (await get(cookie, `/api/photos/${photoId}`)).json();
    const bytes = await Promise.all([p.url, p.previewUrl, p.thumbnailUrl].map((u: string) => get(cookie, u)));
    for (const r of bytes) expect(r.statusCode).toBe(200);
    return { photo: p, hashes: bytes.map((r) => hash(r.rawPayload)), bodies: bytes.map((r) => r.rawPayload) };
  };

  it('lists the six filters with a real swatch of the demo photo each', async () => {
    const { cookie } = await signUp(t.app);
    const res = await get(cookie, '/api/photo-filters/available');
    expect(res.statusCode).toBe(200);
    const list = res.json() as Array<{ id: string; previewUrl: string }>;
    expect(list.map((f) => f.id)).toEqual([...FILTER_IDS]);
    const swatches = await Promise.all(list.map((f) => get(cookie, f.previewUrl)));
    for (const s of swatches) {
      expect(s.statusCode).toBe(200);
      expect(s.headers['content-type']).toBe('image/jpeg');
      expect(s.headers['cache-control']).toContain('immutable');
      const meta = await sharp(s.rawPayload).metadata();
      expect(Math.max(meta.width!, meta.height!)).toBe(160);
    }
    // Six different renditions, and black_white really is grey.
    expect(new Set(swatches.map((s) => hash(s.rawPayload))).size).toBe(6);
    const bw = swatches[FILTER_IDS.indexOf('black_white')]!;
    const { data } = await sharp(bw.rawPayload).raw().toBuffer({ resolveWithObject: true });
    let maxSpread = 0;
    for (let i = 0; i < data.length; i += 3) {
      maxSpread = Math.max(
        maxSpread,
        Math.max(data[i]!, data[i + 1]!, data[i + 2]!) - Math.min(data[i]!, data[i + 1]!, data[i + 2]!),
      );
    }
    expect(maxSpread).toBeLessThanOrEqual(6); // JPEG chroma noise only
    // Conditional requests cost nothing.
    const again = await t.app.inject({
      method: 'GET',
      url: list[0]!.previewUrl,
      headers: { cookie, 'if-none-match': swatches[0]!.headers.etag as string },
    });
    expect(again.statusCode).toBe(304);
  });

  it('renders a preview from the preview derivative and serves identical requests from the cache', async () => {
    const { cookie } = await signUp(t.app);
    const body = { photoId: 'demo', filterName: 'vintage', intensity: 120 };
    const first = await post(cookie, '/api/photo-filters/preview', body);
    expect(first.statusCode).toBe(200);
    expect(first.headers['x-render-cache']).toBe('miss');
    const second = await post(cookie, '/api/photo-filters/preview', body);
    expect(second.statusCode).toBe(200);
    expect(second.headers['x-render-cache']).toBe('hit');
    expect(second.json().previewUrl).toBe(first.json().previewUrl);
    const img = await get(cookie, first.json().previewUrl);
    expect(img.statusCode).toBe(200);
    expect(img.headers['x-render-cache']).toBe('hit');
    const meta = await sharp(img.rawPayload).metadata();
    expect(meta.format).toBe('jpeg');
    expect(Math.max(meta.width!, meta.height!)).toBeLessThanOrEqual(1080);
    // A different intensity is a different render.
    const other = await post(cookie, '/api/photo-filters/preview', { ...body, intensity: 130 });
    expect(other.headers['x-render-cache']).toBe('miss');
    expect(other.json().previewUrl).not.toBe(first.json().previewUrl);
  });

  it("one account's renders never answer another's: same file, another owner, a miss (the demo photo's are shared)", async () => {
    const bytes = await rotatedJpeg();
    const a = await signUp(t.app);
    const b = await signUp(t.app);
    const upload = async (cookie: string) => {
      const res = await postPhotos(t.app, cookie, [{ name: 'private.jpg', bytes }]);
      const [r] = res.json().results as Array<{ ok: boolean; photo: { id: string } }>;
      expect(r?.ok).toBe(true);
      return r!.photo.id;
    };
    const preview = (cookie: string, photoId: string) =>
      post(cookie, '/api/photo-filters/preview', { photoId, filterName: 'dramatic', intensity: 70 });
    const aPhoto = await upload(a.cookie);
    const aFirst = await preview(a.cookie, aPhoto);
    expect(aFirst.statusCode, aFirst.body).toBe(200);
    expect(aFirst.headers['x-render-cache']).toBe('miss');
    expect((await preview(a.cookie, aPhoto)).headers['x-render-cache']).toBe('hit');
    // B holds the same file (the same blobs): a hit would tell B that someone here has this photo
    // and has just tried this filter on it.
    const bPhoto = await upload(b.cookie);
    const bFirst = await preview(b.cookie, bPhoto);
    expect(bFirst.statusCode).toBe(200);
    expect(bFirst.headers['x-render-cache']).toBe('miss');
    // The demo photo is everyone's: its renders are made once for all.
    const demo = { photoId: 'demo', filterName: 'dramatic', intensity: 90 };
    expect((await post(a.cookie, '/api/photo-filters/preview', demo)).headers['x-render-cache']).toBe('miss');
    expect((await post(b.cookie, '/api/photo-filters/preview', demo)).headers['x-render-cache']).toBe('hit');
  });

  it("one account's decode of a shared file is not reused for another's render (it would answer sooner)", async () => {
    const bytes = await rotatedJpeg();
    const reads: string[] = [];
    const blobs = t.app.ctx.blobs;
    const service = createFiltersService({
      repo: createFiltersRepository(t.database.db),
      blobs: { ...blobs, read: (key: string) => (reads.push(key), blobs.read(key)) } as typeof blobs,
      pool: {} as FilterPool,
    });
    const owners = [await signUp(t.app), await signUp(t.app)];
    for (const o of owners) {
      const res = await postPhotos(t.app, o.cookie, [{ name: 'same.jpg', bytes }]);
      const [r] = res.json().results as Array<{ ok: boolean; photo: { id: string } }>;
      await service.preview(o.user.id, { photoId: r!.photo.id, filterName: 'sunset', intensity: 110 });
    }
    // Each account's render read (and decoded) the shared preview file itself.
    expect(reads).toHaveLength(2);
    expect(reads[0]).toBe(reads[1]);
  });

  it('applies a filter as a new version: the original is kept, every URL serves the edit; revert restores it', async () => {
    const { cookie } = await signUp(t.app);
    const res = await postPhotos(t.app, cookie, [{ name: 'turned.jpg', bytes: await rotatedJpeg() }]);
    expect(res.statusCode).toBe(201);
    const id = res.json().results[0].photo.id as string;
    const originalKey = (await rowOf(id)).originalKey;

    const before = await served(cookie, id);
    expect(before.photo.appliedFilter).toBeNull();

    const applied = await post(cookie, '/api/photo-filters/apply', {
      photoId: id,
      filterName: 'black_white',
      intensity: 100,
    });
    expect(applied.statusCode).toBe(200);
    expect(applied.json().photo.appliedFilter).toEqual({ filterName: 'black_white', intensity: 100 });

    const after = await served(cookie, id);
    for (let i = 0; i < 3; i++) expect(after.hashes[i]).not.toBe(before.hashes[i]);
    expect(after.photo.url).not.toBe(before.photo.url);
    expect(after.photo.thumbnailUrl).not.toBe(before.photo.thumbnailUrl);
    expect(after.photo.appliedFilter).toEqual({ filterName: 'black_white', intensity: 100 });
    // The list the gallery reads shows the edit too.
    const listed = (await get(cookie, '/api/photos')).json().find((p: { id: string }) => p.id === id);
    expect(listed.thumbnailUrl).toBe(after.photo.thumbnailUrl);
    // Full size, EXIF orientation applied, monochrome.
    const full = await sharp(after.bodies[0]!).metadata();
    expect([full.width, full.height]).toEqual([400, 600]);
    expect(full.format).toBe('jpeg');
    const stats = await sharp(after.bodies[0]!).stats();
    expect(Math.abs(stats.channels[0]!.mean - stats.channels[2]!.mean)).toBeLessThan(2);

    // The original blob is untouched and still stored.
    const row = await rowOf(id);
    expect(row.originalKey).toBe(originalKey);
    expect(await t.app.ctx.blobs.has(originalKey)).toBe(true);
    expect(await versionsOf(id)).toHaveLength(1);

    // A second apply replaces the version (each edit starts from the original).
    const again = await post(cookie, '/api/photo-filters/apply', { photoId: id, filterName: 'sunset', intensity: 150 });
    expect(again.statusCode).toBe(200);
    expect(await versionsOf(id)).toHaveLength(1);

    const reverted = await post(cookie, '/api/photo-filters/revert', { photoId: id });
    expect(reverted.statusCode).toBe(200);
    expect(reverted.json().photo.appliedFilter).toBeNull();
    const restored = await served(cookie, id);
    expect(restored.hashes).toEqual(before.hashes);
    expect(restored.photo.url).toBe(before.photo.url);
    expect(await versionsOf(id)).toHaveLength(0);
    expect((await rowOf(id)).currentVersionId).toBeNull();
  });

  it("a replaced or reverted edit's files leave the store at once, unless another version still uses them", async () => {
    // Each apply stores a full-size JPEG (megabytes at 4096 px) that the quota stops counting once
    // the next apply or a revert drops its version. Left to the 6-hourly orphan sweep, 30 applies
    // per 5 minutes piled up gigabytes per account outside any plan's quota.
    const a = await signUp(t.app);
    const b = await signUp(t.app);
    const res = await postPhotos(t.app, a.cookie, [{ name: 'edits.jpg', bytes: await rotatedJpeg() }]);
    const id = res.json().results[0].photo.id as string;
    const keysOf = async (photoId: string) =>
      (await versionsOf(photoId)).flatMap((v) => [v.originalKey, v.previewKey, v.thumbnailKey]);
    const apply = async (cookie: string, photoId: string, filterName: string) => {
      const r = await post(cookie, '/api/photo-filters/apply', { photoId, filterName, intensity: 100 });
      expect(r.statusCode, r.body).toBe(200);
      return keysOf(r.json().photo.id as string);
    };

    const vintage = await apply(a.cookie, id, 'vintage');
    for (const k of vintage) expect(await t.app.ctx.blobs.has(k)).toBe(true);
    const dramatic = await apply(a.cookie, id, 'dramatic');
    for (const k of vintage) expect(await t.app.ctx.blobs.has(k), 'replaced version').toBe(false);
    // The same edit again makes the same files: the version that replaces itself keeps them.
    expect(await apply(a.cookie, id, 'dramatic')).toEqual(dramatic);
    for (const k of dramatic) expect(await t.app.ctx.blobs.has(k)).toBe(true);
    const reverted = await post(a.cookie, '/api/photo-filters/revert', { photoId: id });
    expect(reverted.statusCode).toBe(200);
    for (const k of dramatic) expect(await t.app.ctx.blobs.has(k), 'reverted version').toBe(false);
    expect(await t.app.ctx.blobs.has((await rowOf(id)).originalKey)).toBe(true);

    // Both accounts' demo photos are the same file: B's edit is A's edit, byte for byte.
    const aDemo = (await get(a.cookie, '/api/photos/demo')).json().id as string;
    const shared = await apply(a.cookie, 'demo', 'vibrant');
    expect(await apply(b.cookie, 'demo', 'vibrant')).toEqual(shared);
    expect((await post(a.cookie, '/api/photo-filters/revert', { photoId: aDemo })).statusCode).toBe(200);
    for (const k of shared) expect(await t.app.ctx.blobs.has(k), "B's version").toBe(true);
    expect((await served(b.cookie, (await get(b.cookie, '/api/photos/demo')).json().id)).photo.appliedFilter).toEqual({
      filterName: 'vibrant',
      intensity: 100,
    });
  });

  it('an apply whose photo is deleted while its files are written answers 404 and leaves none of them stored', async () => {
    // Each such apply left a full-size version (megabytes) unreferenced and uncounted until the
    // 6-hourly sweep: upload, apply, delete, again, 30 times per 5 minutes.
    const { cookie } = await signUp(t.app);
    const res = await postPhotos(t.app, cookie, [{ name: 'gone.jpg', bytes: await rotatedJpeg() }]);
    const id = res.json().results[0].photo.id as string;
    const blobs = t.app.ctx.blobs;
    const put = blobs.put;
    const written: string[] = [];
    let deleted = false;
    blobs.put = async (bytes) => {
      if (!deleted) {
        deleted = true;
        const del = await t.app.inject({ method: 'DELETE', url: `/api/photos/${id}`, headers: { cookie } });
        expect(del.statusCode, del.body).toBe(200);
      }
      const key = await put.call(blobs, bytes);
      written.push(key);
      return key;
    };
    try {
      const applied = await post(cookie, '/api/photo-filters/apply', {
        photoId: id,
        filterName: 'sunset',
        intensity: 80,
      });
      expect(applied.statusCode, applied.body).toBe(404);
      expect(applied.json().message).toBe('Photo not found.');
    } finally {
      blobs.put = put;
    }
    expect(written).toHaveLength(3);
    for (const k of written) expect(await blobs.has(k)).toBe(false);
  });

  it("'demo' applies to the editor demo photo", async () => {
    const { cookie } = await signUp(t.app);
    const demo = (await get(cookie, '/api/photos/demo')).json();
    const res = await post(cookie, '/api/photo-filters/apply', {
      photoId: 'demo',
      filterName: 'vibrant',
      intensity: 100,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().photo.id).toBe(demo.id);
    expect(res.json().photo.thumbnailUrl).not.toBe(demo.thumbnailUrl);
  });

  it('refuses bad input with a clear message and writes nothing', async () => {
    const { cookie } = await signUp(t.app);
    const demo = (await get(cookie, '/api/photos/demo')).json();
    const keys = await blobKeys();
    const cases: Array<[unknown, RegExp]> = [
      [{ photoId: demo.id, filterName: 'sepia', intensity: 100 }, /Unknown filter/],
      [{ photoId: demo.id, filterName: 'vintage', intensity: 40 }, /between 50 and 150/],
      [{ photoId: demo.id, filterName: 'vintage', intensity: 160 }, /between 50 and 150/],
      [{ photoId: demo.id, filterName: 'vintage', intensity: 105 }, /step of 10/],
      [{ photoId: demo.id, filterName: 'vintage', intensity: '100' }, /number/],
      [{ photoId: demo.id, filterName: 'vintage' }, /Intensity/],
      [{ filterName: 'vintage', intensity: 100 }, /photoId/],
    ];
    for (const [payload, message] of cases) {
      for (const url of ['/api/photo-filters/apply', '/api/photo-filters/preview']) {
        const res = await post(cookie, url, payload);
        expect(res.statusCode, JSON.stringify(payload)).toBe(400);
        expect(res.json().message).toMatch(message);
      }
    }
    const missing = await post(cookie, '/api/photo-filters/apply', {
      photoId: '00000000-0000-4000-8000-000000000000',
      filterName: 'vintage',
      intensity: 100,
    });
    expect(missing.statusCode).toBe(404);
    expect(
      (await get(cookie, `/api/photo-filters/render?photoId=${demo.id}&filterName=sepia&intensity=100`)).statusCode,
    ).toBe(400);
    expect(await versionsOf(demo.id)).toHaveLength(0);
    expect(await blobKeys()).toEqual(keys);
    expect((await rowOf(demo.id)).currentVersionId).toBeNull();
  });

  it("cannot see, preview, apply or revert another user's photo (404, nothing written)", async () => {
    const a = await signUp(t.app);
    const b = await signUp(t.app);
    const aDemo = (await get(a.cookie, '/api/photos/demo')).json();
    const keys = await blobKeys();
    const req = { photoId: aDemo.id, filterName: 'dramatic', intensity: 100 };
    expect((await get(b.cookie, `/api/photo-filters/available?photoId=${aDemo.id}`)).statusCode).toBe(404);
    expect(
      (await get(b.cookie, `/api/photo-filters/render?photoId=${aDemo.id}&filterName=dramatic&intensity=100`))
        .statusCode,
    ).toBe(404);
    expect((await post(b.cookie, '/api/photo-filters/preview', req)).statusCode).toBe(404);
    expect((await post(b.cookie, '/api/photo-filters/apply', req)).statusCode).toBe(404);
    expect((await post(b.cookie, '/api/photo-filters/revert', { photoId: aDemo.id })).statusCode).toBe(404);
    expect(await versionsOf(aDemo.id)).toHaveLength(0);
    expect(await blobKeys()).toEqual(keys);
    expect((await t.app.inject({ method: 'GET', url: '/api/photo-filters/available' })).statusCode).toBe(401);
    // The owner can.
    expect((await get(a.cookie, `/api/photo-filters/available?photoId=${aDemo.id}`)).statusCode).toBe(200);
  });

  it('a photo deleted while the editor reads its file: 404 for preview, render and apply (a 500 before), nothing written', async () => {
    const { cookie } = await signUp(t.app);
    const blobs = t.app.ctx.blobs;
    const read = blobs.read;
    const editor = {
      preview: (id: string) =>
        post(cookie, '/api/photo-filters/preview', { photoId: id, filterName: 'black_white', intensity: 60 }),
      render: (id: string) =>
        get(cookie, `/api/photo-filters/render?photoId=${id}&filterName=black_white&intensity=60&size=swatch`),
      apply: (id: string) =>
        post(cookie, '/api/photo-filters/apply', { photoId: id, filterName: 'black_white', intensity: 60 }),
    };
    for (const [i, [what, ask]] of Object.entries(editor).entries()) {
      const bytes = await sharp({
        create: { width: 300, height: 200, channels: 3, background: { r: 60 * i, g: 90, b: 30 } },
      })
        .jpeg()
        .toBuffer();
      const [r] = (await postPhotos(t.app, cookie, [{ name: `${what}.jpg`, bytes }])).json().results as Array<{
        photo: { id: string };
      }>;
      const id = r!.photo.id;
      // The owner deletes it (its files with it) between the editor's look-up of the photo and its read of the file.
      blobs.read = async (key) => {
        blobs.read = read;
        const del = await t.app.inject({ method: 'DELETE', url: `/api/photos/${id}`, headers: { cookie } });
        expect(del.statusCode, del.body).toBe(200);
        return read.call(blobs, key);
      };
      try {
        const res = await ask(id);
        expect(res.statusCode, `${what}: ${res.body}`).toBe(404);
        expect(res.json().message).toBe('Photo not found.');
      } finally {
        blobs.read = read;
      }
      expect(await versionsOf(id)).toHaveLength(0);
    }
  });
});
