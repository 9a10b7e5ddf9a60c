import { deflateSync } from 'node:zlib';

/** PNG's CRC-32 (polynomial 0xEDB88320) over a chunk's type and data. */
export function crc32(buf: Buffer): number {
  let c = ~0;
  for (const byte of buf) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return ~c >>> 0;
}

export function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/**
 * A greyscale PNG of `width` x `height` whose image data is `rawBytes` zero bytes, deflated: a few
 * KB on the wire whatever it claims. With every row present (height x (1 + packed row bytes)) it
 * decodes to black; with fewer it is a decompression bomb a decoder must refuse by its header.
 */
export function zeroPng(opts: { width: number; height: number; bitDepth: 1 | 8; rawBytes: number }): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(opts.width, 0);
  ihdr.writeUInt32BE(opts.height, 4);
  ihdr[8] = opts.bitDepth;
  ihdr[9] = 0; // greyscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.alloc(opts.rawBytes), { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
