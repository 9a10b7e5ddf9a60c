import { eq } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UploadResponse } from '@contract/photos';
import { photos } from '../db/schema';
import { createTestApp, signUp, testDbKind, type TestApp } from '../test/harness';
import {
  avifClaiming,
  exifPointerList,
  gifCanvas,
  iccpBomb,
  interlacedPng,
  jpegWithExif,
  pngWithChunk,
} from '../test/metadata-bombs';
import { postPhotos } from '../test/multipart';
import { jpeg } from './support';

/**
 * Round eight (images): files of a few bytes to a few KB whose decode or EXIF read cost the server
 * far more than their size. Decoders that hold the whole frame (AV1, interlaced PNG, GIF) are refused
 * past 320 MB from the header (`wholeFrameRefusal`); the EXIF reader, on the HTTP thread, skips a
 * pointer written as a list and never inflates a PNG's iCCP (`lib/exifr-guards.ts`).
 */
describe(`hostile images beyond JPEG (${testDbKind})`, () => {
  let t: TestApp;
  let smallAvif: Buffer;
  const grey = () => sharp({ create: { width: 64, height: 64, channels: 3, background: '#808080' } });
  beforeAll(async () => {
    t = await createTestApp();
    smallAvif = await grey().avif({ effort: 0 }).toBuffer();
  });
  afterAll(() => t?.close());

  it('whole-frame decodes past the bound are refused with a clear message; hostile EXIF and ICC are stored without them', async () => {
    const { cookie } = await signUp(t.app);
    const res = await postPhotos(t.app, cookie, [
      { name: 'big.avif', bytes: avifClaiming(smallAvif, 10_000, 10_000) },
      { name: 'big.gif', bytes: gifCanvas(10_000, 10_000) },
      { name: 'big.png', bytes: interlacedPng(10_000, 10_000) },
      { name: 'exif.jpg', bytes: jpegWithExif(await grey().jpeg().toBuffer(), exifPointerList(15_000)) },
      { name: 'icc.png', bytes: pngWithChunk(await grey().png().toBuffer(), 'iCCP', iccpBomb(16 * 1024 * 1024)) },
      { name: 'fine.jpg', bytes: await jpeg(5) },
    ]);
    expect(res.statusCode).toBe(201);
    const { results, uploaded } = res.json() as UploadResponse & { uploaded: number };
    expect(uploaded).toBe(3);
    expect(results[0]).toMatchObject({
      ok: false,
      status: 422,
      message: expect.stringContaining('AVIF image is too large'),
    });
    expect(results[1]).toMatchObject({ ok: false, status: 422, message: expect.stringContaining('GIF is too large') });
    expect(results[2]).toMatchObject({ ok: false, status: 422, message: expect.stringContaining('interlaced PNG') });
    expect(results.slice(3).map((r) => r.ok)).toEqual([true, true, true]);
  });

  it('one stored before the check is refused by the filter apply and the display rendition, not decoded', async () => {
    const { cookie } = await signUp(t.app);
    const up = await postPhotos(t.app, cookie, [{ name: 'old.jpg', bytes: await jpeg(9) }]);
    const [r] = (up.json() as UploadResponse).results;
    if (!r?.ok) throw new Error(up.body);
    // AV1 under a HEIC brand: sniffed as HEIC, so it gets a display rendition; libheif decodes it by its codec.
    const key = await t.app.ctx.blobs.put(avifClaiming(smallAvif, 10_000, 10_000, 'mif1'));
    await t.database.db.update(photos).set({ originalKey: key, mime: 'image/heic' }).where(eq(photos.id, r.photo.id));
    const apply = await t.app.inject({
      method: 'POST',
      url: '/api/photo-filters/apply',
      headers: { cookie },
      payload: { photoId: r.photo.id, filterName: 'vintage', intensity: 100 },
    });
    expect(apply.statusCode).toBe(422);
    expect(apply.json().message).toContain('AVIF image is too large');
    const display = await t.app.inject({ url: `/api/photos/${r.photo.id}/display`, headers: { cookie } });
    // Answered as the refusal it is (it was a 500, as for any stored original a check refuses today).
    expect(display.statusCode).toBe(422);
    expect(display.json().message).toContain('AVIF image is too large');
  });
});
