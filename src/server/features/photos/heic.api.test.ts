import { eq } from 'drizzle-orm';
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { closeHeicThread, decodeHeic, HEIC_THREAD_ATTEMPTS, HeicDecodeError } from '../../lib/heic';
import { stopHeicThreadsUnderPhoto } from '../../test/heic-stops';
import { photos } from '../../db/schema';
import { createTestApp, signUp, testDbKind, type TestApp } from '../../test/harness';
import { decodeWith, makeDerivatives, PREVIEW_SIZE, THUMBNAIL_SIZE } from './image-pipeline';
import { photoUpload } from '../../test/multipart';

/**
 * e2e/fixtures/iphone-sample.heic: 96 x 64, HEVC-coded (made with libheif's heif-enc from a JPEG
 * whose EXIF says Apple iPhone 15 Pro, taken 2024-07-14 09:30:15). The sharp build here has no HEVC
 * decoder, so these tests go through the WASM fallback.
 */
const HEIC = readFileSync(new URL('../../../../e2e/fixtures/iphone-sample.heic', import.meta.url));

describe(`HEIC uploads (${testDbKind})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    // At warn, an upload refused as unreadable logs the decoder's own error beside the test.
    t = await createTestApp({ maxUploadBytes: 2 * 1024 * 1024, logLevel: 'warn' });
  });
  afterAll(() => t.close());

  const upload = (cookie: string, name: string, bytes: Buffer, type = 'image/heic') => {
    const body = photoUpload([{ name, bytes, type }]);
    return t.app.inject({
      method: 'POST',
      url: '/api/photos',
      headers: { ...body.headers, cookie },
      payload: body.payload,
    });
  };
  const get = (cookie: string, url: string) => t.app.inject({ method: 'GET', url, headers: { cookie } });

  it('stores a HEIC with WebP derivatives, its size, date taken and camera', async () => {
    const { cookie, user } = await signUp(t.app);
    const res = await upload(cookie, 'IMG_0042.HEIC', HEIC);
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body.message).toBe('Photo uploaded successfully!');
    const p = body.results[0].photo;
    expect(p).toMatchObject({ name: 'IMG_0042', width: 96, height: 64, size: HEIC.length });
    expect(p.takenAt).toBe(new Date(2024, 6, 14, 9, 30, 15).toISOString());
    expect(p.thumbhash).toEqual(expect.any(String));

    for (const [url, max] of [
      [p.previewUrl, PREVIEW_SIZE],
      [p.thumbnailUrl, THUMBNAIL_SIZE],
    ] as const) {
      const file = await get(cookie, url);
      expect(file.statusCode).toBe(200);
      expect(file.headers['content-type']).toBe('image/webp');
      const meta = await sharp(file.rawPayload).metadata();
      expect(meta.format).toBe('webp');
      expect([meta.width, meta.height]).toEqual([96, 64]);
      expect(meta.width).toBeLessThanOrEqual(max);
    }
    // The decoded pixels are the photo's (a red-to-green gradient), not an empty frame.
    const stats = await sharp((await get(cookie, p.previewUrl)).rawPayload).stats();
    expect(stats.channels[0]!.max - stats.channels[0]!.min).toBeGreaterThan(150);

    const [row] = await t.database.db.select().from(photos).where(eq(photos.id, p.id));
    expect(row!.mime).toBe('image/heic');
    expect(row!.exif).toMatchObject({
      Make: 'Apple',
      Model: 'iPhone 15 Pro',
      LensModel: 'iPhone 15 Pro back camera 6.765mm f/1.78',
      FNumber: 1.78,
      ISO: 64,
    });
    expect(row!.userId).toBe(user.id);
  });

  it('serves a JPEG rendition for display and keeps the original as uploaded', async () => {
    const { cookie } = await signUp(t.app);
    const p = (await upload(cookie, 'zoom.heic', HEIC)).json().results[0].photo;
    expect(p.displayUrl).toMatch(new RegExp(`^/api/photos/${p.id}/display\\?v=`));

    const display = await get(cookie, p.displayUrl);
    expect(display.statusCode).toBe(200);
    expect(display.headers['content-type']).toBe('image/jpeg');
    const meta = await sharp(display.rawPayload).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 96, 64]);

    const original = await get(cookie, p.url);
    expect(original.headers['content-type']).toBe('image/heic');
    expect(original.rawPayload.equals(HEIC)).toBe(true);
  });

  it('points displayUrl at the original for types browsers show, and renders TIFF', async () => {
    const { cookie } = await signUp(t.app);
    const img = () => sharp({ create: { width: 120, height: 80, channels: 3, background: '#3366cc' } });
    const jpeg = (await upload(cookie, 'a.jpg', await img().jpeg().toBuffer(), 'image/jpeg')).json().results[0].photo;
    expect(jpeg.displayUrl).toBe(jpeg.url);
    const tiff = (await upload(cookie, 'b.tiff', await img().tiff().toBuffer(), 'image/tiff')).json().results[0].photo;
    expect(tiff.displayUrl).toMatch(/\/display\?v=/);
    const res = await get(cookie, tiff.displayUrl);
    expect(res.headers['content-type']).toBe('image/jpeg');
    expect((await sharp(res.rawPayload).metadata()).format).toBe('jpeg');
  });

  it('applies a photo-editor filter to a HEIC (the edit is a JPEG, shown as it is)', async () => {
    const { cookie } = await signUp(t.app);
    const p = (await upload(cookie, 'edit.heic', HEIC)).json().results[0].photo;
    const applied = await t.app.inject({
      method: 'POST',
      url: '/api/photo-filters/apply',
      headers: { cookie, 'content-type': 'application/json' },
      payload: { photoId: p.id, filterName: 'black_white', intensity: 100 },
    });
    expect(applied.statusCode).toBe(200);
    const edited = applied.json().photo;
    expect(edited.displayUrl).toBe(edited.url);
    const full = await get(cookie, edited.url);
    expect(full.headers['content-type']).toBe('image/jpeg');
    expect((await sharp(full.rawPayload).metadata()).width).toBe(96);
  });

  it('refuses a HEIC over the pixel limit from its header, before decoding', async () => {
    await expect(makeDerivatives(HEIC, { maxPixels: 96 * 64 - 1 })).rejects.toMatchObject({
      status: 422,
      message: 'This image is too large (96 x 64 pixels). The limit is 0 megapixels.',
    });
    // The WASM decoder checks the container's size on its own too.
    await expect(decodeHeic(HEIC, 1000)).rejects.toSatisfy((e) => e instanceof HeicDecodeError && e.tooLarge);
  });

  it('a HEIC that sharp fails on for a reason it does not name still goes to the WASM decoder', async () => {
    // With other images decoding at once, sharp reported this HEVC photo as "Unknown error" rather
    // than as a missing codec, and a good photo was refused as unreadable.
    const unnamed = () => sharp(Buffer.from('not an image at all'));
    const size = await decodeWith('image/heic', unnamed, HEIC, 1e6, async (s, decoded) => {
      const meta = await s.metadata();
      return { width: meta.width, height: meta.height, viaWasm: decoded !== undefined };
    });
    expect(size).toEqual({ width: 96, height: 64, viaWasm: true });
  });

  it('refuses a damaged HEIC with a readable message', async () => {
    const { cookie } = await signUp(t.app);
    const res = await upload(cookie, 'broken.heic', HEIC.subarray(0, 600));
    expect(res.statusCode).toBe(422);
    expect(res.json().results[0].message).not.toMatch(/export/i);
    // The decoder's own error stays with the refusal, for the server's log.
    const refusal = await makeDerivatives(HEIC.subarray(0, 600)).catch((e: unknown) => e);
    expect(refusal).toMatchObject({ status: 422, cause: expect.any(Error) });
  });

  it('a decoder thread that keeps stopping is the server\'s failure, not "could not be read", and stores nothing', async () => {
    const { cookie } = await signUp(t.app);
    // A warm thread decodes this photo in milliseconds; a fresh one is still starting when stopped.
    await closeHeicThread();
    const answer = upload(cookie, 'IMG_0043.HEIC', HEIC);
    await stopHeicThreadsUnderPhoto(HEIC_THREAD_ATTEMPTS);
    const res = await answer;
    expect(res.statusCode).toBe(500);
    expect(res.json().message).toBe('Something went wrong on our side.');
    const names = ((await get(cookie, '/api/photos')).json() as Array<{ name: string }>).map((p) => p.name);
    expect(names).not.toContain('IMG_0043');
    // The same photo then goes through.
    expect((await upload(cookie, 'IMG_0043.HEIC', HEIC)).statusCode).toBe(201);
  });

  it('another user cannot read the display rendition', async () => {
    const owner = await signUp(t.app);
    const p = (await upload(owner.cookie, 'mine.heic', HEIC)).json().results[0].photo;
    const other = await signUp(t.app);
    expect((await get(other.cookie, p.displayUrl)).statusCode).toBe(404);
  });
});
