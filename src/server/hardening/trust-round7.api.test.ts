import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UploadResponse } from '@contract/photos';
import { photos } from '../db/schema';
import { createTestApp, signUp, testDbKind, type TestApp } from '../test/harness';
import { progressiveScanBomb } from '../test/jpeg-bombs';
import { postPhotos } from '../test/multipart';
import { jpeg } from './support';

/**
 * Round seven (infrastructure): a progressive JPEG of ~100 bytes a scan made libjpeg pass over all
 * of a 100 MP image's blocks per scan (a 340 KB file of 1,000 scans: 15 s of a decoder thread, the
 * threads sign-ins hash passwords on; two accounts' four uploads held a third user's sign-in 27 s),
 * and 20 such scans held 580 MB of coefficients. Both are refused from the markers now.
 */
describe(`hostile progressive JPEGs (${testDbKind})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t?.close());

  it('an upload of one is refused with a clear message and stores nothing; a real photo beside it is stored', async () => {
    const { cookie } = await signUp(t.app);
    const res = await postPhotos(t.app, cookie, [
      { name: 'scans.jpg', bytes: progressiveScanBomb(10_000, 10_000, 1000) },
      { name: 'memory.jpg', bytes: progressiveScanBomb(10_000, 10_000, 20, 3) },
      { name: 'fine.jpg', bytes: await jpeg(5) },
    ]);
    expect(res.statusCode).toBe(201);
    const { results, uploaded } = res.json() as UploadResponse & { uploaded: number };
    expect(uploaded).toBe(1);
    expect(results[0]).toMatchObject({ ok: false, status: 422, message: expect.stringContaining('passes') });
    expect(results[1]).toMatchObject({ ok: false, status: 422, message: expect.stringContaining('too large to read') });
    expect(results[2]).toMatchObject({ ok: true });
  });

  it('one stored before the check (an older upload) is refused by the filter apply, not decoded in the shared thread', async () => {
    const { cookie } = await signUp(t.app);
    const up = await postPhotos(t.app, cookie, [{ name: 'old.jpg', bytes: await jpeg(9) }]);
    const [r] = (up.json() as UploadResponse).results;
    if (!r?.ok) throw new Error(up.body);
    const key = await t.app.ctx.blobs.put(progressiveScanBomb(10_000, 10_000, 600));
    await t.database.db.update(photos).set({ originalKey: key }).where(eq(photos.id, r.photo.id));
    const apply = await t.app.inject({
      method: 'POST',
      url: '/api/photo-filters/apply',
      headers: { cookie },
      payload: { photoId: r.photo.id, filterName: 'vintage', intensity: 100 },
    });
    expect(apply.statusCode).toBe(422);
    expect(apply.json().message).toContain('passes');
  });
});
