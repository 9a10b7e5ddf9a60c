/**
 * Images whose pixels are ordinary and whose metadata is hostile, for the tests of the EXIF reader's
 * guards (`lib/exifr-guards.ts`).
 */
import { deflateSync } from 'node:zlib';
import { chunk } from './png';

/**
 * An EXIF (TIFF) block whose IFD0 holds one entry, the ExifIFD pointer (0x8769), written as a list
 * of `count` FLOATs instead of one offset: exifr used the list as the offset, a string it grew and
 * parsed again for every one of ~19,000 entries (2 s of the HTTP thread for 64 KB).
 */
export function exifPointerList(count: number): Buffer {
  const t = Buffer.alloc(26 + count * 4);
  for (let i = 26; i + 4 <= t.length; i += 4) t.writeFloatLE(-1.2345678e-38 * (1 + (i % 97) / 1000), i);
  t.write('II*\0', 0, 'latin1');
  t.writeUInt32LE(8, 4);
  t.writeUInt16LE(1, 8);
  t.writeUInt16LE(0x8769, 10);
  t.writeUInt16LE(11, 12); // FLOAT
  t.writeUInt32LE(count, 14);
  t.writeUInt32LE(26, 18);
  t.writeUInt32LE(0, 22); // no IFD1
  return t;
}

/** `jpeg` with `tiff` as its EXIF (an APP1 segment right after SOI); at most ~64 KB, as APP1 allows. */
export function jpegWithExif(jpeg: Buffer, tiff: Buffer): Buffer {
  const payload = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff]);
  const head = Buffer.from([0xff, 0xe1, 0, 0]);
  head.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([jpeg.subarray(0, 2), head, payload, jpeg.subarray(2)]);
}

/** `png` with one more chunk right after IHDR (8 bytes of signature, 25 of IHDR). */
export function pngWithChunk(png: Buffer, type: string, data: Buffer): Buffer {
  return Buffer.concat([png.subarray(0, 33), chunk(type, data), png.subarray(33)]);
}

/** An iCCP chunk's data whose profile is `inflatedBytes` zero bytes, deflated (~1 KB per MB). */
export function iccpBomb(inflatedBytes: number): Buffer {
  return Buffer.concat([Buffer.from('icc\0\0', 'latin1'), deflateSync(Buffer.alloc(inflatedBytes), { level: 9 })]);
}

/**
 * `avif` (a small AVIF) with every `ispe` (image spatial extent) box claiming `width` x `height`:
 * the size libheif reports from the header, before any pixel, as a real AVIF of that size would.
 * With `brand` 'mif1' the file names no AVIF brand and is sniffed as HEIC, though AV1 inside.
 */
export function avifClaiming(avif: Buffer, width: number, height: number, brand?: 'mif1'): Buffer {
  const out = Buffer.from(avif);
  for (let i = out.indexOf('ispe'); i >= 0; i = out.indexOf('ispe', i + 4)) {
    out.writeUInt32BE(width, i + 8);
    out.writeUInt32BE(height, i + 12);
  }
  if (brand) {
    const ftypEnd = out.readUInt32BE(0);
    for (let i = out.indexOf('avif'); i >= 0 && i < ftypEnd; i = out.indexOf('avif', i + 4))
      out.write(brand, i, 'latin1');
  }
  return out;
}

/** An interlaced (Adam7) PNG header of `width` x `height` in 16-bit RGBA, with a few rows' worth of zeros. */
export function interlacedPng(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 16;
  ihdr[9] = 6; // RGBA
  ihdr[12] = 1; // Adam7
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.alloc(64 * 1024))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A GIF whose screen and one frame are `width` x `height`, its pixels a single clear-and-end code. */
export function gifCanvas(width: number, height: number): Buffer {
  const size = Buffer.alloc(4);
  size.writeUInt16LE(width, 0);
  size.writeUInt16LE(height, 2);
  return Buffer.concat([
    Buffer.from('GIF89a', 'latin1'),
    size,
    Buffer.from([0x80, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff]), // a 2-colour global table
    Buffer.from([0x2c, 0, 0, 0, 0]),
    size,
    Buffer.from([0, 2, 2, 0x4c, 0x01, 0, 0x3b]),
  ]);
}

/**
 * An 8 x 8 RGB TIFF whose Make and Model (0x010F, 0x0110: tags the gallery reads) are each `count`
 * LONGs, both pointing at one shared run of bytes: exifr read every value into an array on the HTTP
 * thread (a 48 MB TIFF of 13 such tags: 2.1 s and 1.1 GB), for a value kept only if it is one
 * number or a short text.
 */
export function tiffWithLongTags(count: number): Buffer {
  const W = 8;
  const pixels = W * W * 3;
  const tags: Array<[tag: number, type: number, count: number, value: number | 'pixels' | 'values']> = [
    [256, 3, 1, W],
    [257, 3, 1, W],
    [258, 3, 1, 8],
    [259, 3, 1, 1],
    [262, 3, 1, 2],
    [0x010f, 4, count, 'values'],
    [0x0110, 4, count, 'values'],
    [273, 4, 1, 'pixels'],
    [277, 3, 1, 3],
    [278, 3, 1, W],
    [279, 4, 1, pixels],
  ];
  const ifdEnd = 8 + 2 + tags.length * 12 + 4;
  const at = { pixels: ifdEnd, values: ifdEnd + pixels };
  const b = Buffer.alloc(at.values + count * 4, 0x41);
  b.write('II*\0', 0, 'latin1');
  b.writeUInt32LE(8, 4);
  b.writeUInt16LE(tags.length, 8);
  tags.forEach(([tag, type, n, value], i) => {
    const p = 10 + i * 12;
    b.writeUInt16LE(tag, p);
    b.writeUInt16LE(type, p + 2);
    b.writeUInt32LE(n, p + 4);
    const v = typeof value === 'number' ? value : at[value];
    if (type === 3) b.writeUInt16LE(v, p + 8);
    else b.writeUInt32LE(v, p + 8);
  });
  b.writeUInt32LE(0, 10 + tags.length * 12);
  b.fill(0x80, at.pixels, at.pixels + pixels);
  return b;
}
