import { and, eq, sql } from 'drizzle-orm';
import { randomBytes } from 'node:crypto';
import { threadId } from 'node:worker_threads';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PHOTO_LIST_DEFAULT } from '@contract/photos';
import { buildApp } from '../app';
import { albums, photos } from '../db/schema';
import { createAlbumsRepository } from '../features/albums/albums.repository';
import { pixelPassCount } from '../features/filters/filter-pipelines';
import { createFilterPool, type FilterPool } from '../features/filters/filter-pool';
import { APPLY_BUSY_MESSAGE } from '../features/filters/filters.service';
import { createTestDatabase, signUp, testConfig, type TestDatabase } from '../test/harness';
import { zeroPng } from '../test/png';
import { jpeg, multipart } from './support';

/**
 * Bounded work and honest rewards: an upload is paid once per content, an image over the pixel
 * cap or a library over its storage quota is refused before anything is stored, a user has one
 * filter apply at a time and it runs in a filter thread, lists are bounded and reading albums
 * writes nothing.
 */
const FREE_QUOTA = 2_000_000;

/** The real filter pool behind a gate a test can close, to hold an apply in flight. */
function gatedPool(real: FilterPool) {
  let gate: Promise<void> = Promise.resolve();
  let entered: () => void = () => {};
  const pool: FilterPool = {
    async apply(load) {
      entered();
      await gate;
      return real.apply(load);
    },
    stats: () => real.stats(),
    close: () => real.close(),
  };
  return {
    pool,
    /** Closes the gate; resolves `inFlight` when the next apply reaches the pool. */
    hold() {
      let open!: () => void;
      gate = new Promise((r) => (open = r));
      const inFlight = new Promise<void>((r) => (entered = r));
      return { inFlight, release: () => open() };
    },
  };
}

/** A valid 1-bit grayscale PNG of width x height, all black: a few KB on the wire, decodable. */
const bilevelPng = (width: number, height: number) =>
  // Each row: a filter byte and the packed pixels.
  zeroPng({ width, height, bitDepth: 1, rawBytes: (Math.ceil(width / 8) + 1) * height });

describe('trust: bounded work, quotas and upload rewards', () => {
  let database: TestDatabase;
  let app: Awaited<ReturnType<typeof buildApp>>;
  let cleanup: () => void;
  let filters: ReturnType<typeof gatedPool>;
  const realPool = createFilterPool();

  beforeAll(async () => {
    database = await createTestDatabase();
    const config = testConfig({ storageQuotaBytes: { free: FREE_QUOTA } });
    cleanup = config.cleanup;
    filters = gatedPool(realPool);
    app = await buildApp(config, { database, filters: { pool: filters.pool } });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    await database?.destroy();
    cleanup?.();
  });

  const inject = (cookie: string, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
    app.inject({ method, url, headers: { cookie }, payload });
  const upload = (cookie: string, files: Array<{ name: string; bytes: Buffer }>) => {
    const m = multipart(files);
    return app.inject({ method: 'POST', url: '/api/photos', headers: { cookie, ...m.headers }, payload: m.payload });
  };
  const totalPoints = async (cookie: string) => (await inject(cookie, 'GET', '/api/stats')).json().totalPoints;
  const ownRows = (userId: string) =>
    database.db
      .select()
      .from(photos)
      .where(and(eq(photos.userId, userId), sql`${photos.demoKey} is null`));
  const blobCount = async () => {
    let n = 0;
    for await (const _ of app.ctx.blobs.list()) n += 1;
    return n;
  };

  it('attack: upload, delete, re-upload the same photo pays +5 once, and upload achievements once', async () => {
    const { cookie } = await signUp(app);
    const bytes = await jpeg(1);
    const first = await upload(cookie, [{ name: 'a.jpg', bytes }]);
    expect(first.statusCode).toBe(201);
    expect(first.json().reward).toMatchObject({ rewardedPhotos: 1, message: 'Photo uploaded successfully!' });
    const afterFirst = await totalPoints(cookie);
    // 5 for the photo plus First Steps (the first upload), nothing else.
    expect(afterFirst).toBe(5 + 25);
    for (let i = 0; i < 5; i++) {
      const [photo] = (await inject(cookie, 'GET', '/api/photos?limit=1')).json().items;
      expect((await inject(cookie, 'DELETE', `/api/photos/${photo.id}`)).statusCode).toBe(200);
      const again = await upload(cookie, [{ name: `again-${i}.jpg`, bytes }]);
      expect(again.statusCode).toBe(201);
      expect(again.json().reward ?? null).toBeNull();
    }
    // The same content twice in one batch, next to a new one: only the new one is paid.
    const batch = await upload(cookie, [
      { name: 'dup1.jpg', bytes },
      { name: 'dup2.jpg', bytes },
      { name: 'new.jpg', bytes: await jpeg(2) },
    ]);
    expect(batch.json()).toMatchObject({ uploaded: 3, reward: { rewardedPhotos: 1, points: 5 } });
    expect(await totalPoints(cookie)).toBe(afterFirst + 5);
    // Photo Collector (10 uploads) is not reachable with copies of two photos.
    const rewards = (await inject(cookie, 'GET', '/api/rewards')).json();
    expect(rewards.photosUploaded).toBe(2);
    expect(rewards.achievements).toEqual(['first_steps']);
  });

  it('attack: concurrent uploads of one content are paid once', async () => {
    const { cookie } = await signUp(app);
    const bytes = await jpeg(3);
    const res = await Promise.all([1, 2, 3].map((i) => upload(cookie, [{ name: `race-${i}.jpg`, bytes }])));
    for (const r of res) expect(r.statusCode).toBe(201);
    expect(await totalPoints(cookie)).toBe(5 + 25);
  });

  it('attack: an image over the 100 MP cap is refused from its header, nothing stored', async () => {
    const { cookie, user } = await signUp(app);
    const before = await blobCount();
    // 10,240 x 10,240 = 104.9 MP: decodable, and accepted under the earlier 200 MP cap.
    const res = await upload(cookie, [{ name: 'huge.png', bytes: bilevelPng(10_240, 10_240) }]);
    expect(res.statusCode).toBe(422);
    expect(res.json().message).toBe('This image is too large (10240 x 10240 pixels). The limit is 100 megapixels.');
    expect(await ownRows(user.id)).toHaveLength(0);
    expect(await blobCount()).toBe(before);
  });

  it('attack: an upload past the storage quota is refused with 413, nothing stored', async () => {
    const { cookie, user } = await signUp(app);
    // Random pixels do not compress: each PNG is about 1.1 MB, two pass the 2 MB quota.
    const noise = (seed: number) =>
      sharp(randomBytes(605 * 605 * 3), { raw: { width: 605, height: 605, channels: 3 } })
        .png({ compressionLevel: 0 })
        .toBuffer()
        .then((b) => Buffer.concat([b, Buffer.from(String(seed))]));
    const a = await noise(1);
    expect((await upload(cookie, [{ name: 'a.png', bytes: a }])).statusCode).toBe(201);
    const before = await blobCount();
    const points = await totalPoints(cookie);
    const res = await upload(cookie, [{ name: 'b.png', bytes: await noise(2) }]);
    expect(res.statusCode).toBe(413);
    expect(res.json().message).toMatch(
      /^Storage full: your Free plan holds \d+ MB of photos and \d+ MB is used\. Delete photos or upgrade/,
    );
    expect(await ownRows(user.id)).toHaveLength(1);
    expect(await blobCount()).toBe(before);
    expect(await totalPoints(cookie)).toBe(points);
  });

  it('attack: a second concurrent apply by the same user is refused (409), the first completes', async () => {
    const { cookie } = await signUp(app);
    const body = { photoId: 'demo', filterName: 'vintage', intensity: 100 };
    const { inFlight, release } = filters.hold();
    const first = inject(cookie, 'POST', '/api/photo-filters/apply', body);
    await inFlight;
    const second = await inject(cookie, 'POST', '/api/photo-filters/apply', { ...body, filterName: 'dramatic' });
    expect(second.statusCode).toBe(409);
    expect(second.json().message).toBe(APPLY_BUSY_MESSAGE);
    // Another user is not held up by this user's apply being in flight.
    const other = await signUp(app);
    const { inFlight: otherIn, release: otherRelease } = filters.hold();
    const third = inject(other.cookie, 'POST', '/api/photo-filters/apply', body);
    await otherIn;
    release();
    otherRelease();
    expect((await first).statusCode).toBe(200);
    expect((await third).statusCode).toBe(200);
    expect((await inject(cookie, 'GET', '/api/photos/demo')).json().appliedFilter).toEqual({
      filterName: 'vintage',
      intensity: 100,
    });
    // Once the first is done, the next apply is accepted.
    expect((await inject(cookie, 'POST', '/api/photo-filters/apply', body)).statusCode).toBe(200);
  });

  it('attack: an apply of a large flat PNG runs in a filter thread at a bounded size, never on the event loop', async () => {
    const { cookie } = await signUp(app);
    // 8000 x 6000 (48 MP) flat PNG: tiny on the wire, 144 MB when decoded at full size.
    const flat = await sharp({ create: { width: 8000, height: 6000, channels: 3, background: '#3a7' } })
      .png({ compressionLevel: 9 })
      .toBuffer();
    const up = await upload(cookie, [{ name: 'flat.png', bytes: flat }]);
    expect(up.statusCode).toBe(201);
    const photoId = up.json().results[0].photo.id as string;
    const passesHere = pixelPassCount();
    const completed = realPool.stats().completed;
    const res = await inject(cookie, 'POST', '/api/photo-filters/apply', {
      photoId,
      filterName: 'dramatic',
      intensity: 100,
    });
    expect(res.statusCode).toBe(200);
    expect(realPool.stats().completed).toBe(completed + 1);
    // The per-pixel pass (full render and derivatives) ran on the filter thread, not here.
    expect(pixelPassCount()).toBe(passesHere);
    expect(threadId).toBe(0);
    const edited = res.json().photo;
    const full = await inject(cookie, 'GET', edited.url);
    const meta = await sharp(full.rawPayload).metadata();
    expect(Math.max(meta.width!, meta.height!)).toBe(4096);
  }, 120_000);

  it(`attack: GET /api/photos without limit answers at most ${PHOTO_LIST_DEFAULT}; the summary counts all`, async () => {
    const { cookie, user } = await signUp(app);
    const [demo] = await database.db.select().from(photos).where(eq(photos.userId, user.id)).limit(1);
    const extra = PHOTO_LIST_DEFAULT + 40;
    await database.db.insert(photos).values(
      Array.from({ length: extra }, (_, i) => ({
        ...demo!,
        id: undefined,
        demoKey: null,
        name: `bulk ${i}`,
        analyzed: i % 2 === 0,
        category: i % 2 === 0 ? 'animals' : null,
        uploadedAt: new Date(Date.now() + 1000 + i),
      })),
    );
    const list = (await inject(cookie, 'GET', '/api/photos')).json() as Array<{ name: string }>;
    expect(list).toHaveLength(PHOTO_LIST_DEFAULT);
    expect(list[0]!.name).toBe(`bulk ${extra - 1}`);
    const summary = (await inject(cookie, 'GET', '/api/photos/summary')).json();
    expect(summary).toMatchObject({ total: extra + 10 });
    expect(summary.categories).toContainEqual({ category: 'animals', count: extra / 2 });
    expect((await inject(cookie, 'GET', '/api/photos?limit=1000')).statusCode).toBe(400);
  });

  it('attack: GET /api/albums writes nothing; deleting a photo brings its smart album in step', async () => {
    const { cookie, user } = await signUp(app);
    const demo = await database.db.select().from(photos).where(eq(photos.userId, user.id));
    const [a, b] = demo;
    await database.db
      .update(photos)
      .set({ analyzed: true, category: 'animals' })
      .where(sql`${photos.id} in (${a!.id}, ${b!.id})`);
    await createAlbumsRepository(database.db).syncSmartAlbums(user.id);
    const smart = async () =>
      (await database.db.select().from(albums).where(eq(albums.userId, user.id))).find((x) => x.isSmartAlbum)!;
    const [before] = [await smart()];
    const listed = (await inject(cookie, 'GET', '/api/albums')).json();
    expect(listed).toContainEqual(
      expect.objectContaining({ name: 'Animals', photoCount: 2, description: 'Smart album with 2 photos' }),
    );
    await database.db.update(albums).set({ description: 'marker' }).where(eq(albums.id, before.id));
    const snapshot = async () =>
      (
        (await database.db.execute(
          sql`select (select count(*)::int from albums where user_id = ${user.id}) a,
                     (select count(*)::int from album_photos ap join albums al on al.id = ap.album_id where al.user_id = ${user.id}) ap,
                     (select string_agg(description, '|' order by id) from albums where user_id = ${user.id}) d`,
        )) as unknown as { rows: unknown[] }
      ).rows[0];
    const was = await snapshot();
    for (let i = 0; i < 3; i++) expect((await inject(cookie, 'GET', '/api/albums')).statusCode).toBe(200);
    expect(await snapshot()).toEqual(was);
    expect((await smart()).description).toBe('marker');

    expect((await inject(cookie, 'DELETE', `/api/photos/${a!.id}`)).statusCode).toBe(200);
    const list = (await inject(cookie, 'GET', '/api/albums')).json();
    expect(list).toContainEqual(
      expect.objectContaining({
        name: 'Animals',
        isSmartAlbum: true,
        photoCount: 1,
        description: 'Smart album with 1 photo',
      }),
    );
  });
});
