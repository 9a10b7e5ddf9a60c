import sharp, { type Metadata } from 'sharp';
import { rgbaToThumbHash, thumbHashToApproximateAspectRatio, thumbHashToRGBA } from 'thumbhash';
import { makeDerivatives, makeDisplayRendition, THUMBHASH_INPUT, wholeFrameRefusal } from './image-pipeline';
import { endsEarly, jpegDecodeRefusal, MAX_JPEG_APP_SEGMENTS, MAX_JPEG_SCANS } from '../../lib/image-type';
import { progressiveScanBomb } from '../../test/jpeg-bombs';
import exifr from 'exifr';
import {
  avifClaiming,
  exifPointerList,
  gifCanvas,
  iccpBomb,
  interlacedPng,
  jpegWithExif,
  pngWithChunk,
  tiffWithLongTags,
} from '../../test/metadata-bombs';

/** A 1200 x 600 JPEG: red on the left, blue on the right, a soft gradient from top to bottom. */
async function twoColourPhoto(): Promise<Buffer> {
  const w = 1200;
  const h = 600;
  const px = Buffer.alloc(w * h * 3);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 3;
      const shade = Math.round((60 * y) / h);
      px[i] = x < w / 2 ? 220 - shade : 20;
      px[i + 1] = 30 + shade;
      px[i + 2] = x < w / 2 ? 20 : 220 - shade;
    }
  }
  return sharp(px, { raw: { width: w, height: h, channels: 3 } })
    .jpeg({ quality: 90 })
    .toBuffer();
}

describe('the thumbhash placeholder', () => {
  it(`made from ${THUMBHASH_INPUT} px keeps the photo's layout, colours and shape as a 100 px one does`, async () => {
    const jpeg = await twoColourPhoto();
    const d = await makeDerivatives(jpeg);
    const hash = Buffer.from(d.thumbhash, 'base64');
    expect(thumbHashToApproximateAspectRatio(hash)).toBeCloseTo(2, 0);

    const full = await sharp(jpeg)
      .resize(100, 100, { fit: 'inside' })
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const reference = rgbaToThumbHash(full.info.width, full.info.height, full.data);
    const a = thumbHashToRGBA(hash);
    const b = thumbHashToRGBA(reference);
    expect([a.w, a.h]).toEqual([b.w, b.h]);
    let diff = 0;
    for (let i = 0; i < a.rgba.length; i++) diff += Math.abs(a.rgba[i]! - b.rgba[i]!);
    // Mean difference per channel, out of 255: the two placeholders look the same.
    expect(diff / a.rgba.length).toBeLessThan(1);
    // Red on the left, blue on the right, in the placeholder as in the photo.
    const at = (x: number, y: number) => a.rgba.subarray((y * a.w + x) * 4, (y * a.w + x) * 4 + 3);
    const left = at(Math.floor(a.w / 5), Math.floor(a.h / 2));
    const right = at(Math.floor((4 * a.w) / 5), Math.floor(a.h / 2));
    expect(left[0]!).toBeGreaterThan(left[2]! + 80);
    expect(right[2]!).toBeGreaterThan(right[0]! + 80);
  });
});

describe('a file cut short', () => {
  const formats = ['jpeg', 'png', 'webp', 'gif'] as const;

  it.each(formats)('is called damaged or incomplete when its %s bytes stop early, whatever libvips says', async (f) => {
    const whole = await sharp(await twoColourPhoto())
      .resize(300)
      .toFormat(f)
      .toBuffer();
    const mime = `image/${f}` as const;
    expect(endsEarly(whole, mime)).toBe(false);
    for (const share of [0.3, 0.6, 0.95]) {
      const cut = whole.subarray(0, Math.floor(whole.length * share));
      expect(endsEarly(cut, mime)).toBe(true);
      // libpng says only "read error" for a cut PNG, which named no reason before the bytes were read.
      await expect(makeDerivatives(cut)).rejects.toMatchObject({
        status: 422,
        message: 'This image is damaged or incomplete and cannot be read.',
      });
    }
  });

  it('keeps the catch-all for a whole file the decoder cannot read', async () => {
    const headerOnly = Buffer.concat([Buffer.from('II*\0'), Buffer.alloc(30)]);
    expect(endsEarly(headerOnly, 'image/tiff')).toBe(false);
    await expect(makeDerivatives(headerOnly)).rejects.toMatchObject({
      status: 422,
      message: 'This image could not be read.',
    });
  });
});

describe('a transparent image', () => {
  it('gets a white background in its preview and thumbnail, as in the display rendition', async () => {
    // Transparent pixels that hold black, as most editors write them.
    const png = await sharp({
      create: { width: 400, height: 300, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } },
    })
      .composite([
        { input: Buffer.from('<svg width="400" height="300"><circle cx="200" cy="150" r="80" fill="red"/></svg>') },
      ])
      .png()
      .toBuffer();
    const d = await makeDerivatives(png);
    for (const webp of [d.preview, d.thumbnail]) {
      const { data, info } = await sharp(webp).raw().toBuffer({ resolveWithObject: true });
      const at = (x: number, y: number) => [
        ...data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3),
      ];
      for (const c of at(2, 2)) expect(c).toBeGreaterThan(245);
      const [r, g, b] = at(Math.floor(info.width / 2), Math.floor(info.height / 2));
      expect(r).toBeGreaterThan(200);
      expect(g).toBeLessThan(40);
      expect(b).toBeLessThan(40);
    }
  });
});

describe('a JPEG whose decode would cost far more than its size', () => {
  it('is refused from its markers: too many scans, or a multi-scan image whose coefficients need too much memory', () => {
    // 1,000 scans of one pass over 100 MP each: ~15 s of a decoder thread for 340 KB.
    const scans = progressiveScanBomb(10_000, 10_000, 1000);
    expect(scans.length).toBeLessThan(350_000);
    expect(jpegDecodeRefusal(scans)).toContain(`more than ${MAX_JPEG_SCANS} passes`);
    // 20 scans, 3 components at 10,000 x 10,000: 600 MB of coefficients held before any pixel.
    expect(jpegDecodeRefusal(progressiveScanBomb(10_000, 10_000, 20, 3))).toContain('too large to read');
    // Within both bounds: 20 scans of a 2,000 x 2,000 image.
    expect(jpegDecodeRefusal(progressiveScanBomb(2000, 2000, 20, 3))).toBeNull();
  });

  it('FF 00 between segments does not hide the scans behind it, nor does a single progressive scan escape the memory bound', () => {
    // A walk reading FF 00 as a length jumped over 500 scans libjpeg still decodes (review, twenty-first session).
    const hidden = progressiveScanBomb(2000, 2000, 500, 1, { hideScans: true });
    expect(jpegDecodeRefusal(hidden)).toContain('passes');
    // Progressive with one scan: libjpeg still allocates every coefficient (680 MB at 10,000 x 10,000 x 3).
    expect(jpegDecodeRefusal(progressiveScanBomb(10_000, 10_000, 0, 3))).toContain('too large to read');
    expect(jpegDecodeRefusal(progressiveScanBomb(2000, 2000, 0, 3))).toBeNull();
  });

  it('a file that ends inside its markers is left to the decoder (no read past the end)', async () => {
    const cut = Buffer.from([0xff, 0xd8, 0xff, 0xfe, 0x00, 0x02, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xe0, 0x00]);
    expect(() => jpegDecodeRefusal(cut)).not.toThrow();
    for (let n = 3; n <= cut.length; n++) expect(() => jpegDecodeRefusal(cut.subarray(0, n))).not.toThrow();
    await expect(makeDerivatives(cut)).rejects.toMatchObject({ status: expect.any(Number) });
    await expect(makeDerivatives(cut)).rejects.not.toBeInstanceOf(RangeError);
  });

  it('junk between segments does not hide the scans after it (libjpeg skips it to the next marker)', () => {
    const bomb = progressiveScanBomb(10_000, 10_000, 1000);
    // After the quantisation table (SOI 2 bytes + DQT 4 + 65): a run of bytes that are not a marker.
    const at = 2 + 4 + 65;
    const junked = Buffer.concat([bomb.subarray(0, at), Buffer.alloc(40, 0x41), bomb.subarray(at)]);
    expect(jpegDecodeRefusal(junked)).toContain('passes');
  });

  it('leaves what encoders write alone: baseline, progressive (4:2:0 and 4:4:4) and mozjpeg scan scripts', async () => {
    const photo = sharp({
      create: {
        width: 1600,
        height: 1200,
        channels: 3,
        background: '#808080',
        noise: { type: 'gaussian', mean: 128, sigma: 40 },
      },
    });
    for (const options of [{}, { progressive: true }, { progressive: true, chromaSubsampling: '4:4:4' }]) {
      expect(jpegDecodeRefusal(await photo.clone().jpeg(options).toBuffer())).toBeNull();
    }
    expect(jpegDecodeRefusal(await photo.clone().jpeg({ mozjpeg: true, progressive: true }).toBuffer())).toBeNull();
  });

  it('thousands of APPn segments are refused from the markers; a profile in 255 chunks is not', async () => {
    // libjpeg keeps each APP1/2/13/14 for libvips: 49 MB of empty APP2s took 3.5 GB and 10 s.
    const base = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#808080' } })
      .jpeg()
      .toBuffer();
    const withSegments = (n: number, body: Buffer) => {
      const seg = Buffer.concat([Buffer.from([0xff, 0xe2, 0, 0]), body]);
      seg.writeUInt16BE(body.length + 2, 2);
      return Buffer.concat([base.subarray(0, 2), ...Array.from({ length: n }, () => seg), base.subarray(2)]);
    };
    const many = withSegments(MAX_JPEG_APP_SEGMENTS + 1, Buffer.alloc(0));
    expect(many.length).toBeLessThan(5000);
    expect(jpegDecodeRefusal(many)).toContain('metadata segments');
    await expect(makeDerivatives(many)).rejects.toMatchObject({ status: 422 });
    const icc = withSegments(255, Buffer.concat([Buffer.from('ICC_PROFILE\0', 'latin1'), Buffer.alloc(2000)]));
    expect(jpegDecodeRefusal(icc)).toBeNull();
  });

  it('an upload of one is answered 422 before any decode', async () => {
    await expect(makeDerivatives(progressiveScanBomb(10_000, 10_000, 1000))).rejects.toMatchObject({
      status: 422,
      message: expect.stringContaining('passes'),
    });
  });
});

/** The prototype in `parser`'s chain that defines `method` (exifr's parsers inherit theirs). */
function definerOf(parser: unknown, method: string): Record<string, (...args: unknown[]) => unknown> {
  let p = (parser as { prototype: object }).prototype;
  while (!Object.getOwnPropertyNames(p).includes(method)) p = Object.getPrototypeOf(p) as object;
  return p as Record<string, (...args: unknown[]) => unknown>;
}

describe('metadata that cost the EXIF reader (on the HTTP thread) far more than its size', () => {
  const small = () => sharp({ create: { width: 64, height: 64, channels: 3, background: '#808080' } });

  it('an IFD pointer written as a list of values is skipped, not used as the offset of ~19,000 entries', async () => {
    // 64 KB of EXIF in a JPEG: 2 s of the HTTP thread, a 60 KB PNG eXIf chunk 5 s, growing with its size.
    const tiff = exifPointerList(15_000);
    // Counts the blocks read from anything but one offset, and stops them there (unstopped, each
    // took seconds; recorded, their growing strings filled the test's memory).
    const parser = definerOf(exifr.segmentParsers.get('tiff'), 'parseTags');
    const parseTags = parser.parseTags!;
    let fromList = 0;
    const tags = vi.spyOn(parser, 'parseTags').mockImplementation(function (this: unknown, ...args: unknown[]) {
      if (typeof args[0] !== 'number') {
        fromList += 1;
        throw new Error('a block read from a list');
      }
      return parseTags.apply(this, args);
    });
    try {
      const jpeg = jpegWithExif(await small().jpeg().toBuffer(), tiff);
      const png = pngWithChunk(await small().png().toBuffer(), 'eXIf', tiff);
      for (const file of [jpeg, png]) {
        const d = await makeDerivatives(file);
        expect(d.width).toBe(64);
        expect(d.exif).toBeNull();
      }
      expect(tags).toHaveBeenCalled();
      expect(fromList).toBe(0);
    } finally {
      tags.mockRestore();
    }
  });

  it('a tag of a million values is skipped, not read into an array (the gallery keeps one number or a short text)', async () => {
    const parser = definerOf(exifr.segmentParsers.get('tiff'), 'parseTag');
    const parseTag = parser.parseTag!;
    let longest = 0;
    const tag = vi.spyOn(parser, 'parseTag').mockImplementation(function (this: unknown, ...args: unknown[]) {
      const value = parseTag.apply(this, args) as { length?: number } | undefined;
      longest = Math.max(longest, value?.length ?? 0);
      return value;
    });
    try {
      const d = await makeDerivatives(tiffWithLongTags(1_000_000));
      expect(d.width).toBe(8);
      expect(d.exif).toBeNull();
      expect(tag).toHaveBeenCalled();
      expect(longest).toBeLessThanOrEqual(4096);
    } finally {
      tag.mockRestore();
    }
  });

  it("a PNG's iCCP chunk is not inflated (1 MB of it took 1 GB in one synchronous inflate)", async () => {
    // Counts the profiles inflated for the ICC parser (and drops them: recorded, they filled the test's heap).
    const parser = definerOf(exifr.fileParsers.get('png'), 'injectSegment');
    const injectSegment = parser.injectSegment!;
    let inflated = 0;
    const inject = vi.spyOn(parser, 'injectSegment').mockImplementation(function (this: unknown, ...args: unknown[]) {
      if (args[0] === 'icc') return void (inflated += 1);
      return injectSegment.apply(this, args);
    });
    try {
      const png = pngWithChunk(await small().png().toBuffer(), 'iCCP', iccpBomb(16 * 1024 * 1024));
      expect(png.length).toBeLessThan(40_000);
      expect((await makeDerivatives(png)).width).toBe(64);
      expect(inflated).toBe(0);
    } finally {
      inject.mockRestore();
    }
  });

  it("a PNG's chunks are not walked by exifr: its eXIf chunk is read as libvips found it", async () => {
    // 500,000 text chunks (7.5 MB) held the HTTP thread 1.6 s and took 325 MB in exifr's walk.
    const parse = vi.spyOn(definerOf(exifr.fileParsers.get('png'), 'parse'), 'parse');
    try {
      const png = await small()
        .png()
        .withExif({ IFD0: { Make: 'Canon' } })
        .toBuffer();
      const texts = Array.from({ length: 100 }, () =>
        pngWithChunk(Buffer.alloc(33), 'tEXt', Buffer.from('a\0b')).subarray(33),
      );
      const d = await makeDerivatives(Buffer.concat([png.subarray(0, 33), ...texts, png.subarray(33)]));
      expect(d.exif).toMatchObject({ Make: 'Canon' });
      expect(parse).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
  });

  it('EXIF a camera writes is still read, from a JPEG and from a PNG eXIf chunk', async () => {
    const jpeg = await small()
      .jpeg()
      .withExif({ IFD0: { Make: 'Canon', Model: 'EOS R5' }, IFD2: { DateTimeOriginal: '2024:05:06 07:08:09' } })
      .toBuffer();
    const d = await makeDerivatives(jpeg);
    expect(d.exif).toMatchObject({ Make: 'Canon', Model: 'EOS R5' });
    expect(d.takenAt).toBeInstanceOf(Date);
    const png = await small()
      .png()
      .withExif({ IFD0: { Make: 'Canon' } })
      .toBuffer();
    expect((await makeDerivatives(png)).exif).toMatchObject({ Make: 'Canon' });
  });
});

describe('an image whose decoder holds its whole frame at once', () => {
  const grey = (width: number, height: number) =>
    sharp({ create: { width, height, channels: 3, background: '#808080' } });

  it('is refused from its header past 320 MB: AVIF (also inside a HEIF sniffed as HEIC), interlaced PNG, GIF', async () => {
    const avif = await grey(64, 64).avif({ effort: 0 }).toBuffer();
    // Measured before: 2 KB of AVIF at this size took 1.8 GB and 3 s; 35 bytes of GIF 541 MB; 1.2 MB of interlaced PNG 943 MB.
    const files = {
      AVIF: avifClaiming(avif, 10_000, 10_000),
      'AVIF image': avifClaiming(avif, 10_000, 10_000, 'mif1'),
      'interlaced PNG': interlacedPng(10_000, 10_000),
      GIF: gifCanvas(10_000, 10_000),
    };
    for (const [kind, file] of Object.entries(files)) {
      expect(file.length).toBeLessThan(1000);
      await expect(makeDerivatives(file)).rejects.toMatchObject({
        status: 422,
        message: expect.stringContaining(`${kind === 'AVIF image' ? 'AVIF' : kind}`),
      });
      await expect(makeDerivatives(file)).rejects.toMatchObject({
        message: expect.stringContaining('too large to read here'),
      });
    }
    // The HEIF one gets a display rendition (not an image type browsers show): refused there too.
    await expect(makeDisplayRendition(files['AVIF image'])).rejects.toMatchObject({
      status: 422,
      message: expect.stringContaining('AVIF'),
    });
  });

  it('leaves photos within the bound alone: a 20 MP AVIF, a 100 MP 8-bit interlaced PNG, an 80 MP GIF; small files decode', async () => {
    const meta = (m: Partial<Metadata>) => wholeFrameRefusal(m as Metadata, Buffer.alloc(0));
    const avif = { format: 'heif', compression: 'av1', bitsPerSample: 8 } as const;
    expect(meta({ ...avif, width: 5472, height: 3648 })).toBeNull();
    expect(meta({ ...avif, width: 6000, height: 4000 })).toContain('AVIF');
    expect(meta({ ...avif, width: 4000, height: 3000, bitsPerSample: 12 })).toBeNull();
    expect(meta({ ...avif, width: 5472, height: 3648, bitsPerSample: 12 })).toContain('AVIF');
    expect(meta({ format: 'heif', compression: 'hevc', width: 10_000, height: 10_000 })).toBeNull();
    const png = { format: 'png', isProgressive: true, depth: 'uchar' } as const;
    expect(meta({ ...png, channels: 3, width: 10_000, height: 10_000 })).toBeNull();
    expect(meta({ ...png, channels: 4, width: 10_000, height: 10_000 })).toContain('interlaced PNG');
    expect(
      meta({ ...png, isProgressive: false, depth: 'ushort', channels: 4, width: 10_000, height: 10_000 }),
    ).toBeNull();
    expect(meta({ format: 'gif', width: 8944, height: 8944 })).toBeNull();
    expect(meta({ format: 'gif', width: 10_000, height: 10_000 })).toContain('GIF');

    for (const file of [
      await grey(640, 480).avif({ effort: 0 }).toBuffer(),
      await grey(640, 480).png({ progressive: true }).toBuffer(),
      await grey(640, 480).gif().toBuffer(),
    ]) {
      expect((await makeDerivatives(file)).width).toBe(640);
    }
  });
});
