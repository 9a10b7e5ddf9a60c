import sharp, { type Sharp } from 'sharp';
import { createTestApp, signUp, type TestApp } from '../../test/harness';
import { EARLY_HEADER_BYTES, readJpegHeaderEarly } from './image-pipeline';
import { createPhotosRepository } from './photos.repository';
import { createPhotosService, type UploadInput } from './photos.service';

const CHUNK = 32 * 1024;

/** A 1600 x 1200 JPEG of noise (so well over EARLY_HEADER_BYTES) with a camera's EXIF. */
function noisyJpeg() {
  return sharp({
    create: {
      width: 1600,
      height: 1200,
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean: 128, sigma: 40 },
    },
  })
    .withExif({ IFD0: { Make: 'Eyevu', Model: 'Test' }, IFD2: { DateTimeOriginal: '2023:07:08 09:10:11' } })
    .jpeg({ quality: 90 })
    .toBuffer();
}

/** The same JPEG with 3 x 60 KB of application markers after its start: its header ends past EARLY_HEADER_BYTES. */
function withLongHeader(jpeg: Buffer) {
  const app15 = () => {
    const seg = Buffer.alloc(4 + 60 * 1024, 0x20);
    seg.writeUInt16BE(0xffef, 0);
    seg.writeUInt16BE(seg.length - 2, 2);
    return seg;
  };
  return Buffer.concat([jpeg.subarray(0, 2), app15(), app15(), app15(), jpeg.subarray(2)]);
}

describe('an upload read while it arrives: the header of a JPEG from its first bytes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());
  afterEach(() => vi.restoreAllMocks());

  /** Every header read (sharp's metadata, with the bytes it was given) and every chunk asked for, in order. */
  function recorded() {
    const events: string[] = [];
    const original = sharp.prototype.metadata;
    vi.spyOn(sharp.prototype, 'metadata').mockImplementation(function (this: Sharp, ...args) {
      const input = (this as unknown as { options: { input: { buffer?: Buffer } } }).options.input;
      events.push(`header of ${input.buffer?.length ?? '?'} bytes`);
      return (original as (...a: unknown[]) => ReturnType<Sharp['metadata']>).apply(this, args);
    });
    return events;
  }

  function arriving(bytes: Buffer, events: string[]): UploadInput {
    return {
      fileName: 'camera.jpg',
      truncated: () => false,
      stream: (async function* () {
        for (let at = 0; at < bytes.length; at += CHUNK) {
          events.push(at + CHUNK >= bytes.length ? 'last chunk' : 'chunk');
          yield bytes.subarray(at, at + CHUNK);
        }
      })(),
    };
  }

  async function ingest(bytes: Buffer, events: string[]) {
    const { user } = await signUp(t.app);
    const service = createPhotosService({
      repo: createPhotosRepository(t.database.db),
      tierOf: async (userId, now) => (await t.app.ctx.subscriptions.get(userId, now)).tier,
      blobs: t.app.ctx.blobs,
      config: t.config,
      hooks: {},
      log: () => {},
    });
    const allowance = await service.uploadAllowance(user.id);
    events.length = 0; // the sign-up's demo library is not this upload
    return service.ingestOne(user.id, arriving(bytes, events), allowance);
  }

  it('reads it once, from the first bytes, before the last chunk is asked for; the photo is as from the whole file', async () => {
    const jpeg = await noisyJpeg();
    expect(jpeg.length).toBeGreaterThan(2 * EARLY_HEADER_BYTES);
    const events = recorded();
    const { result } = await ingest(jpeg, events);
    expect(result.ok).toBe(true);
    const headers = events.filter((e) => e.startsWith('header'));
    expect(headers).toEqual([`header of ${EARLY_HEADER_BYTES} bytes`]);
    expect(events.indexOf(headers[0]!)).toBeLessThan(events.indexOf('last chunk'));
    if (!result.ok) return;
    expect(result.photo).toMatchObject({ width: 1600, height: 1200, takenAt: '2023-07-08T09:10:11.000Z' });
  });

  it('reads the whole file when the first bytes do not hold the whole header', async () => {
    const jpeg = withLongHeader(await noisyJpeg());
    expect(await readJpegHeaderEarly(jpeg.subarray(0, EARLY_HEADER_BYTES))).toBeNull();
    const events = recorded();
    const { result } = await ingest(jpeg, events);
    expect(result.ok).toBe(true);
    // The early read failed; the one that counts is of the whole file, once it is in.
    expect(events.filter((e) => e.startsWith('header')).at(-1)).toBe(`header of ${jpeg.length} bytes`);
    if (!result.ok) return;
    expect(result.photo).toMatchObject({ width: 1600, height: 1200, takenAt: '2023-07-08T09:10:11.000Z' });
  });

  it('answers null for the first bytes of anything but a JPEG, or before its first scan; the full header after it', async () => {
    const jpeg = await noisyJpeg();
    const png = await sharp(jpeg).png().toBuffer();
    expect(await readJpegHeaderEarly(png.subarray(0, EARLY_HEADER_BYTES))).toBeNull();
    const scan = jpeg.indexOf(Buffer.from([0xff, 0xda]));
    expect(await readJpegHeaderEarly(jpeg.subarray(0, scan))).toBeNull();
    const early = await readJpegHeaderEarly(jpeg.subarray(0, EARLY_HEADER_BYTES));
    const whole = await sharp(jpeg).metadata();
    expect(early?.meta).toMatchObject({ format: 'jpeg', width: whole.width, height: whole.height, exif: whole.exif });
    expect((await early?.exif)?.takenAt?.toISOString()).toBe('2023-07-08T09:10:11.000Z');
  });
});
