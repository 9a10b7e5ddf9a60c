import { eq } from 'drizzle-orm';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { photos } from '../db/schema';
import { createPhotosRepository } from '../features/photos/photos.repository';
import { createPhotosService } from '../features/photos/photos.service';
import { createTestApp, signUp, type TestApp } from '../test/harness';
import { startTestObjectStore, type TestObjectStore } from '../test/object-store';
import { openBlobStore } from './open-blob-store';
import { S3BlobStore } from './s3-blob-store';
import { postPhotos } from '../test/multipart';

/**
 * The app with BLOB_STORE_URL: photos go to the bucket and come back through the server, for
 * their owner only, with the same cache headers as from the local folder; the orphan sweep works
 * on the bucket.
 */
let s3: TestObjectStore;
let t: TestApp;

beforeAll(async () => {
  s3 = await startTestObjectStore();
  t = await createTestApp({ objectStore: s3.settings });
});
afterAll(async () => {
  await t?.close();
  await s3?.stop();
});

const photoBytes = (seed: number) =>
  sharp({ create: { width: 320, height: 240, channels: 3, background: { r: seed, g: 120, b: 60 } } })
    .jpeg()
    .toBuffer();

async function upload(cookie: string, bytes: Buffer) {
  const res = await postPhotos(t.app, cookie, [{ name: 'bucket.jpg', bytes }]);
  expect(res.statusCode).toBe(201);
  return res.json().results[0].photo as { id: string; url: string; thumbnailUrl: string };
}

async function s3Has(key: string) {
  const direct = new S3BlobStore(s3.settings);
  try {
    return await direct.has(key);
  } finally {
    direct.close();
  }
}

const get = (cookie: string, url: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url, headers: { cookie, ...headers } });

describe('photos in an S3-compatible object store', () => {
  it('serves an upload to its owner only, with the content-addressed cache headers and 304', async () => {
    const owner = await signUp(t.app);
    const stranger = await signUp(t.app);
    const bytes = await photoBytes(200);
    const photo = await upload(owner.cookie, bytes);

    const original = await get(owner.cookie, photo.url);
    expect(original.statusCode).toBe(200);
    expect(original.rawPayload.equals(bytes)).toBe(true);
    expect(original.headers['content-length']).toBe(String(bytes.length));
    expect(original.headers['cache-control']).toBe('private, max-age=31536000, immutable');
    const etag = original.headers.etag as string;
    // In the bucket, and nothing on the server's disk.
    expect(await s3Has(etag.replaceAll('"', ''))).toBe(true);
    expect(existsSync(t.config.blobDir)).toBe(false);
    // The upload was hashed through a local temp file, removed once it was sent.
    expect(readdirSync(path.join(t.config.dataDir, 'upload-staging'))).toEqual([]);
    expect((await get(owner.cookie, photo.url, { 'if-none-match': etag })).statusCode).toBe(304);
    const thumb = await get(owner.cookie, photo.thumbnailUrl);
    expect(thumb.statusCode).toBe(200);
    expect(thumb.headers['content-type']).toBe('image/webp');

    for (const url of [photo.url, photo.thumbnailUrl, `/api/photos/${photo.id}/download`]) {
      expect((await get(stranger.cookie, url)).statusCode).toBe(404);
    }
    const download = await get(owner.cookie, `/api/photos/${photo.id}/download`);
    expect(download.statusCode).toBe(200);
    expect(download.rawPayload.equals(bytes)).toBe(true);
  });

  it('deleting the photo deletes its objects', async () => {
    const { cookie } = await signUp(t.app);
    const photo = await upload(cookie, await photoBytes(90));
    const [row] = await t.database.db.select().from(photos).where(eq(photos.id, photo.id));
    const keys = [row!.originalKey, row!.previewKey, row!.thumbnailKey];
    for (const k of keys) expect(await t.app.ctx.blobs.has(k)).toBe(true);
    const del = await t.app.inject({ method: 'DELETE', url: `/api/photos/${photo.id}`, headers: { cookie } });
    expect(del.statusCode).toBe(200);
    for (const k of keys) expect(await t.app.ctx.blobs.has(k)).toBe(false);
  });

  it('the orphan sweep removes old unreferenced objects and keeps referenced and recent ones', async () => {
    const { cookie } = await signUp(t.app);
    const photo = await upload(cookie, await photoBytes(30));
    const [row] = await t.database.db.select().from(photos).where(eq(photos.id, photo.id));
    const referenced = [row!.originalKey, row!.previewKey, row!.thumbnailKey];
    const blobs = t.app.ctx.blobs;
    const orphanOld = await blobs.put(Buffer.from('orphan left by a crash'));
    const orphanNew = await blobs.put(Buffer.from('upload still in flight'));
    const old = new Date(Date.now() - 60 * 60 * 1000);
    for (const k of [orphanOld, ...referenced]) await s3.age(`blobs/${k}`, old);

    const service = createPhotosService({
      repo: createPhotosRepository(t.database.db),
      tierOf: async () => 'free',
      blobs,
      config: t.config,
      hooks: {},
      log: () => {},
    });
    const result = await service.sweepOrphanBlobs();
    expect(result.removed).toBeGreaterThanOrEqual(1);
    expect(await blobs.has(orphanOld)).toBe(false);
    expect(await blobs.has(orphanNew)).toBe(true);
    for (const k of referenced) expect(await blobs.has(k)).toBe(true);
    expect((await get(cookie, photo.url)).statusCode).toBe(200);
  });

  it('an unreachable or missing bucket stops the start, naming it', async () => {
    await expect(
      openBlobStore({ blobDir: '', dataDir: '', objectStore: { ...s3.settings, bucket: 'no-such-bucket' } }),
    ).rejects.toThrow(/Object store: bucket "no-such-bucket" at http:\/\/127\.0\.0\.1:\d+: it does not exist/);
    const unknownKey = { ...s3.settings, credentials: { accessKeyId: 'NOT-A-KEY', secretAccessKey: 'wrong' } };
    await expect(openBlobStore({ blobDir: '', dataDir: '', objectStore: unknownKey })).rejects.toThrow(
      /Object store: bucket "eyevu-test" at .*: access denied \(check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY\)/,
    );
  });
});
