import sharp from 'sharp';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { BLOB_REMOVALS_AT_ONCE } from '../features/photos/photos.service';
import { startDroppingProxy, type DroppingProxy } from '../test/dropping-proxy';
import { createTestApp, signUp, type TestApp } from '../test/harness';
import { postPhotos } from '../test/multipart';
import { startTestObjectStore, type TestObjectStore } from '../test/object-store';

/**
 * A delete's removals against an object store that went silent, with the store's real silence
 * bound (each try waits a minute; the SDK tries three times) and a short removal deadline in place
 * of BLOB_REMOVAL_DEADLINE_MS: the delete's blob-key locks are held until the deadline, not until
 * the store's tries run out.
 */
let s3: TestObjectStore;
let proxy: DroppingProxy;
let t: TestApp;

beforeAll(async () => {
  s3 = await startTestObjectStore();
  proxy = await startDroppingProxy(s3.settings.endpoint!);
  const timeouts = { connectMs: 2_000, idleMs: 60_000 };
  t = await createTestApp({
    objectStore: { ...s3.settings, endpoint: proxy.url, timeouts },
    blobRemovalDeadlineMs: 300,
  });
});
afterAll(async () => {
  await t?.close();
  await proxy?.close();
  await s3?.stop();
});

const photoBytes = (seed: number) =>
  sharp({ create: { width: 320, height: 240, channels: 3, background: { r: seed, g: 40, b: 90 } } })
    .jpeg()
    .toBuffer();

it('silent on deletes: the delete gives its removals up at the deadline, and an upload of the same file is not held', async () => {
  const { cookie } = await signUp(t.app);
  const files = await Promise.all([1, 2, 3].map(photoBytes));
  const up = await postPhotos(
    t.app,
    cookie,
    files.map((bytes, i) => ({ name: `gone${i}.jpg`, bytes })),
  );
  expect(up.statusCode, up.body).toBe(201);
  const ids = (up.json().results as Array<{ photo: { id: string } }>).map((r) => r.photo.id);
  const tries: string[] = [];
  proxy.hold((req) => {
    // The removals of stored files (an upload's staging copy is removed by a DELETE too).
    if (req.method !== 'DELETE' || !req.url!.includes('/blobs/')) return false;
    tries.push(req.url!);
    return true;
  });
  let again;
  try {
    const deleting = t.app.inject({ method: 'POST', url: '/api/photos/delete', headers: { cookie }, payload: { ids } });
    // The delete holds its blob-key locks while its removals wait on the store.
    await vi.waitFor(() => expect(proxy.held).toBeGreaterThan(0), { timeout: 10_000 });
    // The same file again: its upload needs those locks. Each removal waited out the SDK's three
    // tries (here 3 minutes; ~90 s with the real bounds) while it held them, and this upload's
    // wait for the lock passed its own 30 s statement bound on PostgreSQL (a 503).
    const uploading = postPhotos(t.app, cookie, [{ name: 'again.jpg', bytes: files[0]! }]);
    const res = await deleting;
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ deleted: 3 });
    again = await uploading;
  } finally {
    proxy.release();
  }
  expect(again.statusCode, again.body).toBe(201);
  // Aborted, not tried again after the deadline, and none begun after it.
  expect(new Set(tries).size).toBe(tries.length);
  expect(tries.length).toBeLessThanOrEqual(BLOB_REMOVALS_AT_ONCE);
  // The photo uploaded again has its file (the store never received the delete of it).
  const photo = again.json().results[0].photo as { url: string };
  const original = await t.app.inject({ method: 'GET', url: photo.url, headers: { cookie } });
  expect(original.statusCode).toBe(200);
  expect(original.rawPayload.equals(files[0]!)).toBe(true);
}, 60_000);
