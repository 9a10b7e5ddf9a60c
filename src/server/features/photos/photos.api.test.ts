import { eq, sql } from 'drizzle-orm';
import { utimes } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import pg from 'pg';
import sharp from 'sharp';
import { smallThumbnailUrl } from '@contract/photos';
import { FREE_PHOTO_LIMIT } from '@domain/plans';
import { photos, subscriptions } from '../../db/schema';
import { sha256Hex } from '../../storage/blob-store';
import { createTestApp, signUp, testDbKind, type TestApp } from '../../test/harness';
import { zeroPng } from '../../test/png';
import { createPhotosRepository } from './photos.repository';
import { BLOB_REMOVALS_AT_ONCE, createPhotosService, DECODE_SLOTS, SWEEP_MAX_FAILURES } from './photos.service';
import { photoUpload } from '../../test/multipart';
import { SMALL_THUMBNAIL_SIZE } from './image-pipeline';

const MAX_UPLOAD = 2 * 1024 * 1024;

const base = () =>
  sharp({
    create: { width: 640, height: 480, channels: 3, background: { r: 200, g: 80, b: 40 } },
  }).composite([
    {
      input: { create: { width: 200, height: 200, channels: 3, background: { r: 20, g: 90, b: 220 } } },
      top: 40,
      left: 60,
    },
  ]);

async function fixtures() {
  const raw = await base().png().toBuffer();
  const from = () => sharp(raw);
  return {
    jpeg: await from().jpeg().toBuffer(),
    png: raw,
    webp: await from().webp().toBuffer(),
    avif: await from().avif({ effort: 0 }).toBuffer(),
    gif: await from().gif().toBuffer(),
    tiff: await from().tiff().toBuffer(),
  };
}

/** A valid PNG header claiming 30,000 x 30,000 pixels over a few real rows: tiny on disk, huge when decoded. */
/** A photo row as the upload inserts it, with blob keys made from its name (the repository's own input). */
const uploadedRow = (userId: string, name: string) => ({
  userId,
  name,
  mime: 'image/jpeg',
  size: 1000,
  width: 1,
  height: 1,
  originalKey: sha256Hex(Buffer.from(`${name} original`)),
  previewKey: sha256Hex(Buffer.from(`${name} preview`)),
  thumbnailKey: sha256Hex(Buffer.from(`${name} thumbnail`)),
  uploadedAt: new Date(),
});

const pngBomb = () => zeroPng({ width: 30000, height: 30000, bitDepth: 8, rawBytes: 30001 * 16 });

describe(`photos API (${testDbKind})`, () => {
  let t: TestApp;
  let fx: Awaited<ReturnType<typeof fixtures>>;
  beforeAll(async () => {
    t = await createTestApp({ maxUploadBytes: MAX_UPLOAD });
    fx = await fixtures();
  });
  afterAll(() => t.close());

  /** A photos service over the test app's database and store, as the routes build it. */
  const serviceWith = (deps: Partial<Parameters<typeof createPhotosService>[0]> = {}) =>
    createPhotosService({
      repo: createPhotosRepository(t.database.db),
      tierOf: async (userId, now) => (await t.app.ctx.subscriptions.get(userId, now)).tier,
      blobs: t.app.ctx.blobs,
      config: t.config,
      hooks: {},
      log: () => {},
      ...deps,
    });

  const upload = (cookie: string, files: Array<{ name: string; bytes: Buffer; type?: string }>) => {
    const body = photoUpload(files);
    return t.app.inject({
      method: 'POST',
      url: '/api/photos',
      headers: { ...body.headers, cookie },
      payload: body.payload,
    });
  };
  const get = (cookie: string, url: string) => t.app.inject({ method: 'GET', url, headers: { cookie } });
  const rowsOf = (userId: string) => t.database.db.select().from(photos).where(eq(photos.userId, userId));
  const blobCount = async () => {
    let n = 0;
    for await (const _ of t.app.ctx.blobs.list()) n += 1;
    return n;
  };

  it('decodes at most DECODE_SLOTS uploads at once, the rest waiting their turn (libuv threads left for sign-ins)', async () => {
    const { user } = await signUp(t.app);
    const service = serviceWith();
    const photo = await sharp({
      create: {
        width: 1600,
        height: 1200,
        channels: 3,
        background: '#808080',
        noise: { type: 'gaussian', mean: 128, sigma: 30 },
      },
    })
      .jpeg()
      .toBuffer();
    const allowance = service.uploadAllowance(user.id);
    let most = 0;
    let queued = 0;
    let done = false;
    const all = Promise.all(
      [0, 1, 2, 3, 4].map((i) =>
        service.ingestOne(
          user.id,
          { fileName: `p${i}.jpg`, stream: Readable.from([photo]), truncated: () => false },
          allowance,
        ),
      ),
    ).finally(() => (done = true));
    while (!done) {
      const { running, waiting } = service.decodeStats();
      most = Math.max(most, running);
      queued = Math.max(queued, waiting);
      await new Promise((r) => setImmediate(r));
    }
    expect((await all).every((i) => i.result.ok)).toBe(true);
    expect(most).toBe(DECODE_SLOTS);
    expect(queued).toBeGreaterThan(0);
    expect(service.decodeStats()).toEqual({ running: 0, waiting: 0 });
  });

  it('display renditions read their originals in their decode place: a burst holds at most DECODE_SLOTS originals', async () => {
    const blobs = t.app.ctx.blobs;
    const keys = await Promise.all(
      [1, 2, 3, 4, 5, 6].map(async (i) =>
        blobs.put(
          await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: i, g: 9, b: 9 } } })
            .tiff()
            .toBuffer(),
        ),
      ),
    );
    let reading = 0;
    let most = 0;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    // The store's reads, held until the test has counted them.
    const counted = Object.assign(Object.create(blobs) as typeof blobs, {
      read: async (key: string) => {
        reading += 1;
        most = Math.max(most, reading);
        await gate;
        reading -= 1;
        return blobs.read(key);
      },
    });
    const service = serviceWith({ blobs: counted });
    const all = Promise.all(keys.map((key) => service.renderDisplay(key)));
    // Every request has either begun its read or is waiting for a place.
    await vi.waitFor(() => expect(reading + service.decodeStats().waiting).toBe(keys.length));
    expect(reading).toBe(DECODE_SLOTS);
    open();
    expect((await all).every((jpeg) => jpeg.subarray(0, 2).equals(Buffer.from([0xff, 0xd8])))).toBe(true);
    expect(most).toBe(DECODE_SLOTS);
  });

  it('seeds the demo library on register, with an editor photo and thumbnails', async () => {
    const { cookie, user } = await signUp(t.app);
    const res = await get(cookie, '/api/photos');
    expect(res.statusCode).toBe(200);
    const list = res.json();
    expect(Array.isArray(list)).toBe(true);
    expect(list).toHaveLength(10);
    expect(list[0].name).toBe('Astronaut Portrait');
    expect(list.every((p: { isDemo: boolean }) => p.isDemo)).toBe(true);
    const demo = await get(cookie, '/api/photos/demo');
    expect(demo.statusCode).toBe(200);
    expect(demo.json().name).toBe('Coffee Cup');
    const thumb = await get(cookie, demo.json().thumbnailUrl);
    expect(thumb.statusCode).toBe(200);
    expect(thumb.headers['content-type']).toBe('image/webp');
    expect((await sharp(thumb.rawPayload).metadata()).width).toBeLessThanOrEqual(400);
    expect(await rowsOf(user.id)).toHaveLength(10);
  });

  it('seeds quickly once the demo derivatives are computed (they are shared, only rows differ)', async () => {
    const service = serviceWith();
    await service.warmDemoLibrary();
    const before = await blobCount();
    const { user } = await signUp(t.app, { email: `seed-${Date.now()}@example.com` });
    await t.database.db.delete(photos).where(eq(photos.userId, user.id));
    const started = performance.now();
    expect(await service.seedDemoLibrary(user.id)).toBe(10);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(await blobCount()).toBe(before);
  });

  it('ingests each supported type with a thumbnail, a preview and a thumbhash', async () => {
    const { cookie, user } = await signUp(t.app);
    for (const [type, bytes] of Object.entries(fx)) {
      const res = await upload(cookie, [{ name: `pic.${type}`, bytes }]);
      expect(res.statusCode, `${type}: ${res.body}`).toBe(201);
      const result = res.json().results[0];
      expect(result.ok).toBe(true);
      expect(result.photo).toMatchObject({ name: 'pic', size: bytes.length, width: 640, height: 480, analyzed: false });
      expect(result.photo.thumbhash).toMatch(/^[A-Za-z0-9+/=]+$/);
      const row = (await rowsOf(user.id)).find((r) => r.id === result.photo.id)!;
      expect(row.mime).toBe(`image/${type}`);
      for (const variant of ['thumbnail', 'preview', 'original'] as const) {
        const url = result.photo[variant === 'original' ? 'url' : `${variant}Url`];
        const img = await get(cookie, url);
        expect(img.statusCode).toBe(200);
        expect(img.headers['cache-control']).toBe('private, max-age=31536000, immutable');
        expect(img.headers.etag).toBeTruthy();
        if (variant === 'original') expect(sha256Hex(img.rawPayload)).toBe(row.originalKey);
        const again = await t.app.inject({
          method: 'GET',
          url,
          headers: { cookie, 'if-none-match': img.headers.etag as string },
        });
        expect(again.statusCode).toBe(304);
      }
    }
  });

  it("serves a small thumbnail made from the thumbnail: 240 px WebP, fewer bytes, its own ETag, cached under the thumbnail's version", async () => {
    const { cookie } = await signUp(t.app);
    const big = await base().resize(1600, 1200).jpeg({ quality: 92 }).toBuffer();
    const p = (await upload(cookie, [{ name: 'wide.jpg', bytes: big }])).json().results[0].photo;
    const small = smallThumbnailUrl(p.thumbnailUrl);
    expect(small).toBe(p.thumbnailUrl.replace('/thumbnail?', '/small?'));
    const [thumb, mini] = await Promise.all([get(cookie, p.thumbnailUrl), get(cookie, small)]);
    expect(mini.statusCode, mini.body).toBe(200);
    expect(mini.headers['content-type']).toBe('image/webp');
    expect(mini.headers['cache-control']).toBe('private, max-age=31536000, immutable');
    const meta = await sharp(mini.rawPayload).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', SMALL_THUMBNAIL_SIZE, 180]);
    expect(mini.rawPayload.length).toBeLessThan(thumb.rawPayload.length);
    // Not the thumbnail's validator: a cache holding one must not answer the other with a 304.
    expect(mini.headers.etag).not.toBe(thumb.headers.etag);
    const again = await t.app.inject({
      method: 'GET',
      url: small,
      headers: { cookie, 'if-none-match': mini.headers.etag as string },
    });
    expect(again.statusCode).toBe(304);
    const crossed = await t.app.inject({
      method: 'GET',
      url: small,
      headers: { cookie, 'if-none-match': thumb.headers.etag as string },
    });
    expect(crossed.statusCode).toBe(200);
    // Made once: the second answer is the same bytes from memory.
    expect((await get(cookie, small)).rawPayload.equals(mini.rawPayload)).toBe(true);
  });

  it("one account's previews and thumbnails in memory never answer another's: the same file is read for each owner", async () => {
    // Blobs are stored by content, so two accounts holding the same file share the preview's key.
    // Served from memory to the second, the preview told it (an object store's read away from a
    // memory copy) that someone here has that photo and has just opened it.
    const bytes = await base().resize(900, 600).jpeg({ quality: 88 }).toBuffer();
    const a = await signUp(t.app);
    const b = await signUp(t.app);
    const pa = (await upload(a.cookie, [{ name: 'shared.jpg', bytes }])).json().results[0].photo;
    const pb = (await upload(b.cookie, [{ name: 'shared.jpg', bytes }])).json().results[0].photo;
    const [aRow] = await rowsOf(a.user.id).then((rows) => rows.filter((r) => r.id === pa.id));
    const blobs = t.app.ctx.blobs;
    const read = blobs.read;
    const reads: string[] = [];
    blobs.read = (key) => (reads.push(key), read.call(blobs, key));
    try {
      expect((await get(a.cookie, pa.previewUrl)).statusCode).toBe(200);
      expect((await get(a.cookie, pa.previewUrl)).statusCode).toBe(200);
      expect((await get(b.cookie, pb.previewUrl)).statusCode).toBe(200);
      // Once for each owner (A's second answer from memory).
      expect(reads.filter((k) => k === aRow!.previewKey)).toHaveLength(2);
      // A thumbnail A viewed, asked by B after its own upload, B's as it kept it.
      expect((await get(a.cookie, pa.thumbnailUrl)).statusCode).toBe(200);
      expect((await get(b.cookie, pb.thumbnailUrl)).statusCode).toBe(200);
      expect(reads.filter((k) => k === aRow!.thumbnailKey)).toHaveLength(0);
    } finally {
      blobs.read = read;
    }
    // The demo library's files are everyone's: read once for all.
    const demoOf = async (cookie: string) =>
      ((await get(cookie, '/api/photos')).json() as Array<{ isDemo: boolean; previewUrl: string }>).find(
        (p) => p.isDemo,
      )!;
    const [da, db] = [await demoOf(a.cookie), await demoOf(b.cookie)];
    const demoReads: string[] = [];
    blobs.read = (key) => (demoReads.push(key), read.call(blobs, key));
    try {
      await get(a.cookie, da.previewUrl);
      await get(b.cookie, db.previewUrl);
      expect(demoReads.length).toBeLessThanOrEqual(1);
    } finally {
      blobs.read = read;
    }
  });

  it('auto-rotates per EXIF and reads the taken-at time', async () => {
    const { cookie } = await signUp(t.app);
    const rotated = await sharp(fx.png)
      .jpeg()
      .withMetadata({ orientation: 6 })
      .withExif({
        IFD0: { DateTime: '2021:06:01 10:20:30' },
        IFD2: { DateTimeOriginal: '2021:06:01 10:20:30' },
      } as never)
      .toBuffer();
    const res = await upload(cookie, [{ name: 'turned.jpg', bytes: rotated }]);
    expect(res.statusCode).toBe(201);
    const p = res.json().results[0].photo;
    expect([p.width, p.height]).toEqual([480, 640]);
    expect(p.takenAt).toMatch(/^2021-06-01T/);
    const preview = await sharp((await get(cookie, p.previewUrl)).rawPayload).metadata();
    expect([preview.width, preview.height]).toEqual([480, 640]);
  });

  it('refuses non-images, truncated files, pixel bombs and oversize files, leaving no row or blob', async () => {
    const { cookie, user } = await signUp(t.app);
    const before = await blobCount();
    const bomb = pngBomb();
    expect(bomb.length).toBeLessThan(10_000);
    const cases = [
      {
        name: 'notes.jpg',
        bytes: Buffer.from('hello, this is text and not a photo at all'),
        status: 415,
        msg: /not a supported image/,
      },
      {
        name: 'cut.jpg',
        bytes: fx.jpeg.subarray(0, Math.floor(fx.jpeg.length / 2)),
        status: 422,
        msg: /damaged|could not be read/,
      },
      { name: 'bomb.png', bytes: bomb, status: 422, msg: /too large \(30000 x 30000 pixels\)/ },
      {
        name: 'huge.jpg',
        bytes: Buffer.concat([fx.jpeg, Buffer.alloc(MAX_UPLOAD)]),
        status: 413,
        msg: /larger than the 2 MB/,
      },
      {
        name: 'page.svg',
        bytes: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'),
        status: 415,
        msg: /not a supported image/,
      },
    ];
    for (const c of cases) {
      const started = Date.now();
      const res = await upload(cookie, [{ name: c.name, bytes: c.bytes }]);
      expect(res.statusCode, c.name).toBe(c.status);
      expect(res.json().message, c.name).toMatch(c.msg);
      expect(res.json().results[0]).toMatchObject({ ok: false, fileName: c.name, status: c.status });
      expect(Date.now() - started, c.name).toBeLessThan(3000);
    }
    expect((await rowsOf(user.id)).filter((r) => r.demoKey === null)).toHaveLength(0);
    expect(await blobCount()).toBe(before);
  });

  it("logs the decoder's own error only for the catch-all refusal, whose answer names no reason", async () => {
    const warned: Array<{ msg: string; err: unknown }> = [];
    const service = serviceWith({ warn: (msg, err) => warned.push({ msg, err }) });
    const { user } = await signUp(t.app);
    const ingest = async (fileName: string, bytes: Buffer) => {
      const { result } = await service.ingestOne(
        user.id,
        { fileName, stream: Readable.from([bytes]), truncated: () => false },
        service.uploadAllowance(user.id),
      );
      return result;
    };
    // A TIFF header and nothing after it: the decoder's error matches no rule (the catch-all).
    const headerOnly = Buffer.concat([Buffer.from('II*\0'), Buffer.alloc(30)]);
    expect(await ingest('header.tif', headerOnly)).toMatchObject({
      ok: false,
      status: 422,
      message: 'This image could not be read.',
    });
    expect(warned).toHaveLength(1);
    expect(warned[0]!.msg).toBe('upload refused: This image could not be read.');
    expect(String(warned[0]!.err)).toMatch(/unsupported image format/);

    // Refusals that name their reason tell the uploader already: nothing is logged for them.
    expect(await ingest('cut.jpg', fx.jpeg.subarray(0, Math.floor(fx.jpeg.length / 2)))).toMatchObject({
      status: 422,
      message: 'This image is damaged or incomplete and cannot be read.',
    });
    expect(await ingest('notes.jpg', Buffer.from('hello, this is text and not a photo at all'))).toMatchObject({
      status: 415,
    });
    expect(await ingest('bomb.png', pngBomb())).toMatchObject({ status: 422, message: /too large/ });
    expect((await ingest('fine.png', fx.png)).ok).toBe(true);
    expect(warned).toHaveLength(1);
  });
  it('keeps the good files of a batch with a bad one and reports each', async () => {
    const { cookie, user } = await signUp(t.app);
    const hooked: Array<[string, number]> = [];
    t.app.ctx.onPhotosUploaded!.push(async (userId, uploads) => {
      hooked.push([userId, uploads.length]);
    });
    t.app.ctx.onPhotosUploaded!.push(async () => {
      throw new Error('reward service down');
    });
    const res = await upload(cookie, [
      { name: 'a.png', bytes: fx.png },
      { name: 'b.jpg', bytes: Buffer.from('not an image, just bytes....') },
      { name: 'c.webp', bytes: fx.webp },
    ]);
    t.app.ctx.onPhotosUploaded!.length = 0;
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({ uploaded: 2, failed: 1 });
    expect(body.results.map((r: { ok: boolean }) => r.ok)).toEqual([true, false, true]);
    expect(body.results[1].message).toMatch(/not a supported image/);
    expect((await rowsOf(user.id)).filter((r) => r.demoKey === null)).toHaveLength(2);
    expect(hooked).toEqual([[user.id, 2]]);
  });

  it('holds work deferred by ingest listeners (waking analysis) until the upload has been answered', async () => {
    const { cookie } = await signUp(t.app);
    const events: string[] = [];
    let allWoken!: () => void;
    const woken = new Promise<void>((resolve) => (allWoken = resolve));
    const ingested = t.app.ctx.onPhotoIngested!;
    const uploaded = t.app.ctx.onPhotosUploaded!;
    let batchDone!: () => void;
    const batched = new Promise<void>((resolve) => (batchDone = resolve));
    ingested.push(async (_photo, afterAnswer) => {
      // Listeners run alongside the batch hook, and the answer waits for both: this one ends
      // only after the batch hook has.
      await batched;
      await new Promise((r) => setImmediate(r));
      events.push('stored');
      afterAnswer(() => {
        events.push('woken');
        if (events.filter((e) => e === 'woken').length === 2) allWoken();
      });
    });
    uploaded.push(async () => {
      events.push('batch done');
      batchDone();
    });
    try {
      const res = await upload(cookie, [
        { name: 'a.png', bytes: fx.png },
        { name: 'b.webp', bytes: fx.webp },
      ]);
      expect(res.statusCode).toBe(201);
      await woken;
    } finally {
      ingested.pop();
      uploaded.pop();
    }
    // Nothing was woken before the answer, which came after the batch hook and every listener.
    expect(events).toEqual(['batch done', 'stored', 'stored', 'woken', 'woken']);
  });

  it(`refuses the ${FREE_PHOTO_LIMIT + 1}st photo on the free plan, and not on a paid one`, async () => {
    const { cookie, user } = await signUp(t.app);
    const [demo] = await rowsOf(user.id);
    const filler = Array.from({ length: FREE_PHOTO_LIMIT - 1 }, (_, i) => ({
      ...demo!,
      id: undefined,
      demoKey: null,
      name: `filler ${i}`,
      uploadedAt: new Date(Date.now() - 10_000 - i),
    }));
    await t.database.db.insert(photos).values(filler);
    const ok = await upload(cookie, [{ name: 'fiftieth.png', bytes: fx.png }]);
    expect(ok.statusCode).toBe(201);
    const refused = await upload(cookie, [{ name: 'one-more.png', bytes: fx.png }]);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().message).toMatch(/Free plan holds up to 50 photos/);
    await t.database.db.insert(subscriptions).values({
      userId: user.id,
      status: 'active',
      tier: 'premium',
      billingCycle: 'monthly',
      price: 999,
      endDate: new Date(Date.now() + 86_400_000),
      source: 'upgrade',
    });
    const paid = await upload(cookie, [{ name: 'one-more.png', bytes: fx.png }]);
    expect(paid.statusCode).toBe(201);
  });

  it('inserts an upload in three round trips (BEGIN with its locks and counts, the insert, COMMIT), a refusal in two', async () => {
    const { user } = await signUp(t.app);
    const repo = createPhotosRepository(t.database.db);
    const pool = (t.database.db as unknown as { $client: pg.Pool }).$client;
    // Every query sent on a client checked out of the pool while the spy is on, in order (a
    // transaction's; the pool's own `query` checks out with a callback, and is left alone).
    const sent: string[] = [];
    const connect = pool.connect.bind(pool) as (cb?: unknown) => Promise<pg.PoolClient>;
    const spy = vi.spyOn(pool, 'connect').mockImplementation((async (cb?: unknown) => {
      if (cb) return connect(cb);
      const client = await connect();
      const query = client.query;
      const release = client.release;
      client.query = ((q: string | { text: string }, ...rest: unknown[]) => {
        sent.push(typeof q === 'string' ? q : q.text);
        return (query as (...a: unknown[]) => unknown).call(client, q, ...rest);
      }) as typeof client.query;
      client.release = (err?: Error | boolean) => {
        client.query = query;
        client.release = release;
        release.call(client, err);
      };
      return client;
    }) as unknown as typeof pool.connect);
    const values = (name: string) => uploadedRow(user.id, name);
    try {
      const row = await repo.insertUploaded(values('three trips'), {
        maxCounted: null,
        quotaBytes: 1e12,
        ensureBlobs: async () => undefined,
      });
      expect(row).toMatchObject({ name: 'three trips', userId: user.id, size: 1000 });
      expect(sent).toHaveLength(3);
      expect(sent[0]).toMatch(/^begin; select/);
      expect(sent[1]).toMatch(/^insert into "photos"/);
      expect(sent[2]).toBe('commit');
      sent.length = 0;
      expect(
        await repo.insertUploaded(values('refused'), { maxCounted: 1, quotaBytes: 1e12, ensureBlobs: async () => {} }),
      ).toBe('limit');
      expect(sent).toEqual([expect.stringMatching(/^begin; select/), 'rollback']);
    } finally {
      spy.mockRestore();
    }
    expect((await rowsOf(user.id)).filter((r) => r.demoKey === null).map((r) => r.name)).toEqual(['three trips']);
  });

  it('two uploads at once cannot pass the photo limit or the quota: the second counts after the first commits', async () => {
    const { user } = await signUp(t.app);
    const repo = createPhotosRepository(t.database.db);
    const values = (name: string) => uploadedRow(user.id, name);
    const cases = [
      { refusal: 'limit', maxCounted: 1, quotaBytes: 1e12 },
      { refusal: 'quota', maxCounted: null, quotaBytes: 1500 },
    ] as const;
    for (const [i, { refusal, ...limits }] of cases.entries()) {
      // The first holds its locks, its row inserted but not committed, until let go.
      let holding!: () => void;
      let letGo!: () => void;
      const held = new Promise<void>((r) => (holding = r));
      const gate = new Promise<void>((r) => (letGo = r));
      const first = repo.insertUploaded(values(`first ${i}`), {
        ...limits,
        ensureBlobs: async () => {
          holding();
          await gate;
        },
      });
      await held;
      const second = repo.insertUploaded(values(`second ${i}`), { ...limits, ensureBlobs: async () => {} });
      if (testDbKind === 'postgres') {
        // Let go only once the second waits for the user's lock (the embedded database runs one
        // session at a time, so there the second cannot start before the first ends).
        for (;;) {
          const res = (await t.database.db.execute(
            sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
          )) as unknown as { rows: Array<{ n: number }> };
          if (res.rows[0]!.n > 0) break;
          await new Promise((r) => setImmediate(r));
        }
      }
      letGo();
      expect(await first).toMatchObject({ name: `first ${i}` });
      expect(await second).toBe(refusal);
      await t.database.db.delete(photos).where(eq(photos.userId, user.id));
    }
  });

  it("answers 404 for another user's photo, its files and its deletion", async () => {
    const a = await signUp(t.app);
    const b = await signUp(t.app);
    const p = (await upload(a.cookie, [{ name: 'mine.png', bytes: fx.png }])).json().results[0].photo;
    for (const url of [`/api/photos/${p.id}`, p.url, p.previewUrl, p.thumbnailUrl, smallThumbnailUrl(p.thumbnailUrl)]) {
      expect((await get(b.cookie, url)).statusCode, url).toBe(404);
      expect((await get(a.cookie, url)).statusCode, url).toBe(200);
    }
    expect(
      (await t.app.inject({ method: 'DELETE', url: `/api/photos/${p.id}`, headers: { cookie: b.cookie } })).statusCode,
    ).toBe(404);
    expect((await get(b.cookie, '/api/photos/not-a-uuid')).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: p.url })).statusCode).toBe(401);
    expect((await get(a.cookie, `/api/photos/${p.id}`)).statusCode).toBe(200);
  });

  it('deletes a photo and its blobs, but keeps blobs another photo shares', async () => {
    const { cookie, user } = await signUp(t.app);
    const big = await sharp(fx.png).resize(1800).jpeg().toBuffer();
    const first = (await upload(cookie, [{ name: 'one.jpg', bytes: big }])).json().results[0].photo;
    const second = (await upload(cookie, [{ name: 'two.jpg', bytes: big }])).json().results[0].photo;
    const row = (await rowsOf(user.id)).find((r) => r.id === first.id)!;
    expect(
      (await t.app.inject({ method: 'DELETE', url: `/api/photos/${first.id}`, headers: { cookie } })).statusCode,
    ).toBe(200);
    expect(await t.app.ctx.blobs.has(row.originalKey)).toBe(true);
    expect((await get(cookie, second.url)).statusCode).toBe(200);
    expect(
      (await t.app.inject({ method: 'DELETE', url: `/api/photos/${second.id}`, headers: { cookie } })).statusCode,
    ).toBe(200);
    for (const k of [row.originalKey, row.previewKey, row.thumbnailKey])
      expect(await t.app.ctx.blobs.has(k)).toBe(false);
    expect((await get(cookie, `/api/photos/${first.id}`)).statusCode).toBe(404);
  });

  it('pages through every photo exactly once, newest first, with a total', async () => {
    const { cookie, user } = await signUp(t.app);
    const [demo] = await rowsOf(user.id);
    // Many rows share a timestamp, so the id breaks ties in the keyset.
    const same = new Date('2024-01-01T00:00:00.123456Z');
    await t.database.db.insert(photos).values(
      Array.from({ length: 53 }, (_, i) => ({
        ...demo!,
        id: undefined,
        demoKey: null,
        name: `p${i}`,
        uploadedAt: i % 3 === 0 ? same : new Date(same.getTime() - i * 1000),
      })),
    );
    const all = (await get(cookie, '/api/photos')).json() as Array<{ id: string }>;
    expect(all).toHaveLength(63);
    // A first page holding every photo (its length is the total, exactly full included), and one short of it.
    for (const limit of [200, 63]) {
      const whole = (await get(cookie, `/api/photos?limit=${limit}`)).json();
      expect([whole.items.length, whole.total, whole.nextCursor]).toEqual([63, 63, null]);
    }
    const almost = (await get(cookie, '/api/photos?limit=62')).json();
    expect([almost.items.length, almost.total, typeof almost.nextCursor]).toEqual([62, 63, 'string']);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const qs: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const res = await get(cookie, `/api/photos?limit=10${qs}`);
      expect(res.statusCode).toBe(200);
      const page = res.json();
      expect(page.total).toBe(63);
      seen.push(...page.items.map((p: { id: string }) => p.id));
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor && pages < 20);
    expect(pages).toBe(7);
    expect(seen).toEqual(all.map((p) => p.id));
    expect(new Set(seen).size).toBe(63);
    expect((await get(cookie, '/api/photos?limit=10&cursor=garbage')).statusCode).toBe(400);
    expect((await get(cookie, '/api/photos?limit=0')).statusCode).toBe(400);
  });

  it('sweeps old unreferenced blobs and keeps referenced and recent ones', async () => {
    const { cookie } = await signUp(t.app);
    const p = (await upload(cookie, [{ name: 'kept.png', bytes: fx.png }])).json().results[0].photo;
    const blobs = t.app.ctx.blobs;
    const orphanOld = await blobs.put(Buffer.from('orphan from a crash'));
    const orphanNew = await blobs.put(Buffer.from('upload still in flight'));
    const root = t.config.blobDir;
    const file = (k: string) => path.join(root, k.slice(0, 2), k.slice(2, 4), k);
    const old = new Date(Date.now() - 60 * 60 * 1000);
    await utimes(file(orphanOld), old, old);
    const [row] = await t.database.db.select().from(photos).where(eq(photos.id, p.id));
    for (const k of [row!.originalKey, row!.previewKey, row!.thumbnailKey]) await utimes(file(k), old, old);

    const service = serviceWith({ blobs });
    const result = await service.sweepOrphanBlobs();
    expect(result.removed).toBeGreaterThanOrEqual(1);
    expect(await blobs.has(orphanOld)).toBe(false);
    expect(await blobs.has(orphanNew)).toBe(true);
    for (const k of [row!.originalKey, row!.previewKey, row!.thumbnailKey]) expect(await blobs.has(k)).toBe(true);
    expect((await get(cookie, p.thumbnailUrl)).statusCode).toBe(200);
  });

  /** `count` old orphans, and the store with its deletes watched (`failing`: each delete refused). */
  const orphansAndWatchedStore = async (count: number, label: string, failing = false) => {
    const blobs = t.app.ctx.blobs;
    const keys = await Promise.all(
      Array.from({ length: count }, (_, i) => blobs.put(Buffer.from(`${label} orphan ${i}`))),
    );
    const old = new Date(Date.now() - 60 * 60 * 1000);
    const file = (k: string) => path.join(t.config.blobDir, k.slice(0, 2), k.slice(2, 4), k);
    for (const k of keys) await utimes(file(k), old, old);
    const ours = new Set(keys);
    const watch = { inFlight: 0, most: 0, begun: 0 };
    const watched: typeof blobs = Object.create(blobs);
    watched.delete = async (key) => {
      if (!ours.has(key)) return blobs.delete(key);
      watch.begun += 1;
      watch.inFlight += 1;
      watch.most = Math.max(watch.most, watch.inFlight);
      try {
        // The store's round trip: the others begun meanwhile are on their way too.
        await new Promise((resolve) => setImmediate(resolve));
        if (failing) throw new Error('the store refused');
        return await blobs.delete(key);
      } finally {
        watch.inFlight -= 1;
      }
    };
    return { keys, watched, watch };
  };

  it('the sweep removes a batch of orphans a few at once, as a delete does, not one at a time', async () => {
    const { keys, watched, watch } = await orphansAndWatchedStore(40, 'few at once');
    const result = await serviceWith({ blobs: watched }).sweepOrphanBlobs();
    expect(result.failed).toBe(0);
    for (const k of keys) expect(await t.app.ctx.blobs.has(k)).toBe(false);
    // One at a time, 500 orphans under their locks took 1,000 store round trips in turn.
    expect(watch.most).toBe(BLOB_REMOVALS_AT_ONCE);
  });

  it('a sweep stopped by failing removals begins none after its last failure and settles every one begun first', async () => {
    const { keys, watched, watch } = await orphansAndWatchedStore(40, 'failing store', true);
    const sweep = serviceWith({ blobs: watched }).sweepOrphanBlobs();
    await expect(sweep).rejects.toThrow('the store refused');
    // Settled while the batch's blob-key locks were held: none goes on after they are let go.
    expect(watch.inFlight).toBe(0);
    expect(watch.begun).toBeGreaterThanOrEqual(SWEEP_MAX_FAILURES);
    expect(watch.begun).toBeLessThan(SWEEP_MAX_FAILURES + BLOB_REMOVALS_AT_ONCE);
    for (const k of keys) expect(await t.app.ctx.blobs.has(k)).toBe(true);
    await serviceWith().sweepOrphanBlobs();
  });

  it("a new account's demo library never points at files the orphan sweep removed while it was seeded", async () => {
    await signUp(t.app);
    const blobs = t.app.ctx.blobs;
    const has = blobs.has.bind(blobs);
    const removed = new Set<string>();
    // The sweep's moment: each demo file is found present, then removed (no account uses it any
    // more, its grace over) before the new account's rows are in.
    blobs.has = async (key) => {
      if (removed.has(key) || !(await has(key))) return has(key);
      removed.add(key);
      await blobs.delete(key);
      return true;
    };
    let userId: string;
    try {
      userId = (await signUp(t.app)).user.id;
    } finally {
      blobs.has = has;
    }
    const rows = await t.database.db.select().from(photos).where(eq(photos.userId, userId));
    expect(rows).toHaveLength(10);
    expect(removed.size).toBe(30);
    for (const r of rows)
      for (const k of [r.originalKey, r.previewKey, r.thumbnailKey]) expect(await has(k)).toBe(true);
  });
});
