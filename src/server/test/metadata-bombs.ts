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
