import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_UNAVAILABLE_MESSAGE } from '../http/errors';
import { createPhotosRepository } from '../features/photos/photos.repository';
import { STORE_UNAVAILABLE_UPLOAD_MESSAGE } from '../features/photos/photos.routes';
import { BLOB_REMOVALS_AT_ONCE, createPhotosService } from '../features/photos/photos.service';
import { startDroppingProxy, type DroppingProxy } from '../test/dropping-proxy';
import { createTestApp, sessionCookieFrom, signUp, type TestApp } from '../test/harness';
import { postPhotos } from '../test/multipart';
import { insertStoredPhoto } from '../test/stored-photo';
import { startTestObjectStore, type TestObjectStore } from '../test/object-store';

/**
 * The app on an S3-compatible store that fails: reached through a proxy that can hold requests
 * unanswered (a store that accepted the connection and went silent) or answer them with a 500.
 * Every failure is a 503 that says so, bounded in time, and an upload keeps what it stored before;
 * the orphan sweep goes on past an object it could not remove.
 */
let s3: TestObjectStore;
let proxy: DroppingProxy;
let t: TestApp;

beforeAll(async () => {
  s3 = await startTestObjectStore();
  proxy = await startDroppingProxy(s3.settings.endpoint!);
  // Short, so a silent store fails within seconds (the SDK tries each request 3 times); s3rver on
  // loopback answers in milliseconds.
  const timeouts = { connectMs: 2_000, idleMs: 500 };
  t = await createTestApp({ objectStore: { ...s3.settings, endpoint: proxy.url, timeouts } });
});
afterAll(async () => {
  await t?.close();
  await proxy?.close();
  await s3?.stop();
});

const photoBytes = (seed: number) =>
  sharp({ create: { width: 320, height: 240, channels: 3, background: { r: seed, g: 90, b: 160 } } })
    .jpeg()
    .toBuffer();
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const get = (cookie: string, url: string) => t.app.inject({ method: 'GET', url, headers: { cookie } });

async function uploaded(cookie: string, seed: number) {
  const res = await postPhotos(t.app, cookie, [{ name: `p${seed}.jpg`, bytes: await photoBytes(seed) }]);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().results[0].photo as { id: string; url: string; previewUrl: string };
}

/** The photos service on the app's database and store, logging to `log` (for its orphan sweep). */
const sweeper = (log: (msg: string) => void) =>
  createPhotosService({
    repo: createPhotosRepository(t.database.db),
    tierOf: async () => 'free',
    blobs: t.app.ctx.blobs,
    config: t.config,
    hooks: {},
    log,
  });

const ownPhotoNames = async (cookie: string) => {
  const res = await get(cookie, '/api/photos?limit=200');
  return (res.json().items as Array<{ name: string; isDemo: boolean }>).filter((p) => !p.isDemo).map((p) => p.name);
};

describe('an object store that fails', () => {
  it('that never answers: reads and uploads answer 503 within its timeouts, and nothing is left behind', async () => {
    const { cookie } = await signUp(t.app);
    const photo = await uploaded(cookie, 10);
    proxy.hold(() => true);
    try {
      // Never read, so not in memory: read from the store.
      const preview = await get(cookie, photo.previewUrl);
      expect(preview.statusCode).toBe(503);
      expect(preview.json()).toEqual({ message: STORE_UNAVAILABLE_MESSAGE, code: 'unavailable' });
      const up = await postPhotos(t.app, cookie, [{ name: 'silent.jpg', bytes: await photoBytes(11) }]);
      expect(up.statusCode).toBe(503);
      expect(up.json()).toMatchObject({
        uploaded: 0,
        message: STORE_UNAVAILABLE_UPLOAD_MESSAGE,
        results: [{ ok: false, fileName: 'silent.jpg', status: 503 }],
      });
      expect(proxy.held).toBeGreaterThan(0);
    } finally {
      proxy.release();
    }
    // The store back: the same reads work, and the refused photo is nowhere.
    expect((await get(cookie, photo.previewUrl)).statusCode).toBe(200);
    expect((await get(cookie, photo.url)).statusCode).toBe(200);
    expect(await ownPhotoNames(cookie)).toEqual(['p10']);
    expect(readdirSync(path.join(t.config.dataDir, 'upload-staging'))).toEqual([]);
  }, 60_000);

  it('answering 500: the original and the download are a 503 in JSON, not an error after their headers', async () => {
    const { cookie } = await signUp(t.app);
    const photo = await uploaded(cookie, 20);
    proxy.fail((req) => req.method === 'GET', 500, 1_000);
    try {
      for (const url of [photo.previewUrl, photo.url, `/api/photos/${photo.id}/download`]) {
        const res = await get(cookie, url);
        expect(res.statusCode, url).toBe(503);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.json()).toEqual({ message: STORE_UNAVAILABLE_MESSAGE, code: 'unavailable' });
      }
    } finally {
      proxy.fail(() => false, 500, 0);
    }
    const original = await get(cookie, photo.url);
    expect(original.statusCode).toBe(200);
    expect(original.rawPayload.equals(await photoBytes(20))).toBe(true);
  });

  it('answering 503: a failed image answer is never cached as the image (its URL names content for a year)', async () => {
    const { cookie } = await signUp(t.app);
    const photo = await uploaded(cookie, 25);
    // The URLs the app shows, each with the `v` that makes its success immutable for a year.
    const urls = [
      photo.url,
      photo.previewUrl,
      `/api/photo-filters/render?${new URLSearchParams({
        photoId: photo.id,
        filterName: 'vintage',
        intensity: '100',
        size: 'preview',
        v: new URL(photo.previewUrl, 'http://x').searchParams.get('v')!,
      })}`,
    ];
    proxy.fail((req) => req.method === 'GET', 503, 1_000);
    try {
      for (const url of urls) {
        const res = await get(cookie, url);
        expect(res.statusCode, url).toBe(503);
        // Stored under the image's lifetime and tag, a browser kept the error for a year, and a
        // revalidation with that tag was answered 304: the photo stayed broken once the store was back.
        expect(res.headers['cache-control'], url).toBe('private, no-store');
        expect(res.headers.etag, url).toBeUndefined();
      }
    } finally {
      proxy.fail(() => false, 500, 0);
    }
    for (const url of urls) {
      const res = await get(cookie, url);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['cache-control'], url).toBe('private, max-age=31536000, immutable');
    }
  });

  it('failing on one photo of an upload: those before it are answered and rewarded, it and the rest refused', async () => {
    const { cookie } = await signUp(t.app);
    const [first, failing, third, fourth] = await Promise.all([30, 31, 32, 33].map(photoBytes));
    // Every write of the second photo's original (its staging object carries its hash) fails.
    const key = sha(failing!);
    proxy.fail((req) => req.method === 'PUT' && req.url!.includes(key), 500, 1_000);
    try {
      const res = await postPhotos(t.app, cookie, [
        { name: 'first.jpg', bytes: first! },
        { name: 'failing.jpg', bytes: failing! },
        { name: 'third.jpg', bytes: third! },
        { name: 'fourth.jpg', bytes: fourth! },
      ]);
      expect(res.statusCode, res.body).toBe(201);
      const body = res.json();
      expect(body.uploaded).toBe(1);
      expect(body.results).toMatchObject([
        { ok: true, fileName: 'first.jpg' },
        { ok: false, fileName: 'failing.jpg', status: 503, message: STORE_UNAVAILABLE_UPLOAD_MESSAGE },
        { ok: false, fileName: 'The 2 photos after it', status: 503, message: STORE_UNAVAILABLE_UPLOAD_MESSAGE },
      ]);
      expect(body.reward).toMatchObject({ rewardedPhotos: 1 });
      expect(proxy.failed).toBeGreaterThan(0);
    } finally {
      proxy.fail(() => false, 500, 0);
    }
    expect(await ownPhotoNames(cookie)).toEqual(['first']);
    expect(readdirSync(path.join(t.config.dataDir, 'upload-staging'))).toEqual([]);
  });

  it('silent on deletes: a delete tries a few files, not each in turn, and leaves the rest to the sweep', async () => {
    const { cookie, user } = await signUp(t.app);
    const blobs = t.app.ctx.blobs;
    // 24 photos of one file each: 24 files the delete removes inside its transaction.
    const files = Array.from({ length: 24 }, (_, i) => Buffer.from(`photo ${i} of a silent delete`));
    const ids = [];
    for (const [i, bytes] of files.entries()) ids.push(await insertStoredPhoto(t.app, user.id, `d${i}`, bytes));
    const keys = files.map(sha);
    const tried = new Set<string>();
    proxy.hold((req) => {
      if (req.method !== 'DELETE') return false;
      tried.add(req.url!);
      return true;
    });
    let res;
    try {
      res = await t.app.inject({ method: 'POST', url: '/api/photos/delete', headers: { cookie }, payload: { ids } });
    } finally {
      proxy.release();
    }
    // Each file waited out the store's timeouts in turn (3 tries each) while the delete held the
    // owner's lock and a database connection: 600 files of a 200-photo delete, hours. Now a few at
    // once, and none begun after the first that failed.
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ deleted: 24 });
    expect(tried.size).toBeGreaterThan(0);
    expect(tried.size).toBeLessThanOrEqual(BLOB_REMOVALS_AT_ONCE);
    expect(await ownPhotoNames(cookie)).toEqual([]);
    // The files the store kept are orphans the next sweep finds and removes.
    for (const k of keys) expect(await blobs.has(k)).toBe(true);
    const old = new Date(Date.now() - 60 * 60 * 1000);
    for (const k of keys) await s3.age(`blobs/${k}`, old);
    const result = await sweeper(() => undefined).sweepOrphanBlobs();
    expect(result.failed).toBe(0);
    for (const k of keys) expect(await blobs.has(k)).toBe(false);
  }, 60_000);

  it('failing at a sign-up: the account is not made without its demo library, and the same sign-up works once it is back', async () => {
    const email = `store-down-${Date.now()}@example.com`;
    const register = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/auth/register',
        payload: { firstName: 'Store', lastName: 'Down', email, password: 'secret123' },
      });
    proxy.fail(() => true, 503, 10_000);
    let refused;
    try {
      refused = await register();
    } finally {
      proxy.fail(() => false, 500, 0);
    }
    // Made anyway, the account had no demo library for ever (nothing gives it later): an empty
    // gallery and a photo editor answering 'Photo not found', and its owner's retry was refused
    // as an existing account.
    expect(refused.statusCode, refused.body).toBe(503);
    expect(refused.json()).toEqual({ message: STORE_UNAVAILABLE_MESSAGE, code: 'unavailable' });
    expect(refused.headers['set-cookie']).toBeUndefined();
    const res = await register();
    expect(res.statusCode, res.body).toBe(201);
    const cookie = sessionCookieFrom(res);
    expect((await get(cookie, '/api/photos/demo')).statusCode).toBe(200);
    const list = await get(cookie, '/api/photos?limit=200');
    expect((list.json().items as Array<{ isDemo: boolean }>).filter((p) => p.isDemo).length).toBeGreaterThan(0);
  });

  it('refusing to delete one orphan: the sweep leaves it for the next run and removes the others', async () => {
    const blobs = t.app.ctx.blobs;
    const orphans = (
      await Promise.all([1, 2, 3].map((i) => blobs.put(Buffer.from(`orphan ${i} of a refusing store`))))
    ).sort();
    const old = new Date(Date.now() - 60 * 60 * 1000);
    for (const k of orphans) await s3.age(`blobs/${k}`, old);
    // The first listed (keys are listed in order), so the others come after the refusal.
    proxy.fail((req) => req.method === 'DELETE' && req.url!.includes(orphans[0]!), 403, 1_000);
    const logged: string[] = [];
    try {
      const result = await sweeper((msg) => logged.push(msg)).sweepOrphanBlobs();
      expect(result).toMatchObject({ failed: 1 });
      expect(result.removed).toBeGreaterThanOrEqual(2);
    } finally {
      proxy.fail(() => false, 500, 0);
    }
    expect(await blobs.has(orphans[0]!)).toBe(true);
    expect(await blobs.has(orphans[1]!)).toBe(false);
    expect(await blobs.has(orphans[2]!)).toBe(false);
    expect(logged).toEqual([`orphan blob ${orphans[0]} could not be removed; left for the next sweep`]);
  });
});
