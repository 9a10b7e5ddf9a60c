/**
 * Hostile image uploads: decompression bombs, lying headers, broken EXIF and random bytes, sent
 * through the upload route; every answer is judged and the blob store must stay consistent.
 */
import type { FastifyInstance } from 'fastify';
import sharp from 'sharp';
import { signUp, type TestApp } from '../test/harness';
import { zeroPng } from '../test/png';
import { blobConsistency, judge, multipart, rng, type Rng } from './support';

/** A valid PNG header claiming w x h pixels over a few real rows: tiny on disk, huge when decoded. */
const pngBomb = (w: number, h: number) =>
  zeroPng({ width: w, height: h, bitDepth: 8, rawBytes: Math.min(w + 1, 70_000) * 16 });
/** A JPEG whose frame header (SOF0) claims other dimensions. */
function jpegWithDims(jpeg: Buffer, w: number, h: number): Buffer {
  const out = Buffer.from(jpeg);
  for (let i = 2; i < out.length - 9; i++) {
    if (out[i] === 0xff && (out[i + 1] === 0xc0 || out[i + 1] === 0xc2)) {
      out.writeUInt16BE(h, i + 5);
      out.writeUInt16BE(w, i + 7);
      break;
    }
  }
  return out;
}
/** A JPEG with an APP1 EXIF segment of the given payload inserted after SOI. */
function withExif(jpeg: Buffer, payload: Buffer): Buffer {
  const len = Buffer.alloc(2);
  len.writeUInt16BE(Math.min(payload.length + 8, 0xffff));
  return Buffer.concat([
    jpeg.subarray(0, 2),
    Buffer.from([0xff, 0xe1]),
    len,
    Buffer.from('Exif\0\0'),
    payload.subarray(0, 0xffff - 8),
    jpeg.subarray(2),
  ]);
}
function tiffHeader(r: Rng): Buffer {
  const b = Buffer.alloc(64 + r.int(0, 200));
  for (let i = 0; i < b.length; i++) b[i] = r.int(0, 255);
  b.write(r.next() < 0.5 ? 'II' : 'MM', 0, 'latin1');
  if (b[0] === 0x49) {
    b.writeUInt16LE(42, 2);
    b.writeUInt32LE(r.pick([8, 0xffffffff, 0, 7, 60000]), 4);
    b.writeUInt16LE(r.pick([0xffff, 1, 300]), 8);
  } else {
    b.writeUInt16BE(42, 2);
    b.writeUInt32BE(r.pick([8, 0xffffffff, 0, 7, 60000]), 4);
  }
  return b;
}

export interface HostileFile {
  kind: string;
  name: string;
  bytes: Buffer;
  type: string;
}

export async function hostileImages(r: Rng, count: number): Promise<HostileFile[]> {
  const base = await sharp({ create: { width: 120, height: 90, channels: 3, background: { r: 10, g: 120, b: 200 } } })
    .composite([{ input: { create: { width: 30, height: 30, channels: 3, background: '#f00' } }, top: 10, left: 10 }])
    .png()
    .toBuffer();
  const formats = {
    jpeg: await sharp(base).jpeg().toBuffer(),
    png: base,
    webp: await sharp(base).webp().toBuffer(),
    gif: await sharp(base).gif().toBuffer(),
    tiff: await sharp(base).tiff().toBuffer(),
    avif: await sharp(base).avif({ effort: 0 }).toBuffer(),
  };
  const fmtNames = Object.keys(formats) as Array<keyof typeof formats>;
  const gens: Array<[string, () => Promise<Buffer> | Buffer, string?]> = [
    ['zero-byte', () => Buffer.alloc(0)],
    [
      'truncated',
      () => {
        const f = formats[r.pick(fmtNames)];
        return f.subarray(0, r.int(1, f.length - 1));
      },
    ],
    [
      'wrong-magic',
      () =>
        Buffer.concat([
          Buffer.from(
            r.pick([
              '%PDF-1.7\n',
              'PK\u0003\u0004',
              'GIF87',
              '\u007fELF',
              '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
              'BM',
              'RIFF\0\0\0\0WAVE',
            ]),
          ),
          Buffer.alloc(r.int(0, 2000), r.int(0, 255)),
        ]),
      'image/jpeg',
    ],
    ['random-bytes', () => Buffer.from(Array.from({ length: r.int(1, 5000) }, () => r.int(0, 255)))],
    [
      'polyglot',
      () =>
        Buffer.concat([
          formats[r.pick(fmtNames)],
          Buffer.from(
            r.pick([
              '<html><script>alert(1)</script></html>',
              'PK\u0003\u0004' + 'z'.repeat(100),
              '<?php system($_GET["c"]); ?>',
            ]),
          ),
        ]),
    ],
    ['polyglot-prefix', () => Buffer.concat([Buffer.from('<script>alert(1)</script>'), formats.jpeg])],
    ['pixel-bomb', () => pngBomb(r.pick([30_000, 50_000, 65_535, 100_000]), r.pick([30_000, 50_000, 65_535, 100_000]))],
    ['huge-dimensions', () => jpegWithDims(formats.jpeg, r.pick([65_535, 40_000, 1, 0]), r.pick([65_535, 30_000, 0]))],
    ['corrupt-exif', () => withExif(formats.jpeg, tiffHeader(r))],
    [
      'byte-flips',
      () => {
        const f = Buffer.from(formats[r.pick(fmtNames)]);
        for (let k = r.int(1, 20); k > 0; k--) f[r.int(0, f.length - 1)] = r.int(0, 255);
        return f;
      },
    ],
    [
      'valid',
      async () =>
        sharp({
          create: {
            width: r.int(8, 300),
            height: r.int(8, 300),
            channels: 3,
            background: { r: r.int(0, 255), g: r.int(0, 255), b: r.int(0, 255) },
          },
        })
          .jpeg()
          .toBuffer(),
    ],
    [
      'long-strip',
      () =>
        sharp({ create: { width: 16_000, height: 2, channels: 3, background: '#888' } })
          .png()
          .toBuffer(),
    ],
  ];
  const files: HostileFile[] = [];
  for (let i = 0; i < count; i++) {
    const [kind, make, type] = gens[i % gens.length]!;
    const bytes = await make();
    const name = r.pick([
      `${kind}-${i}.jpg`,
      `${kind}-${i}.png`,
      `../../${kind}-${i}.jpg`,
      `${'n'.repeat(300)}.jpg`,
      `${kind}<script>.gif`,
      '',
    ]);
    files.push({
      kind,
      name,
      bytes,
      type: type ?? r.pick(['image/jpeg', 'image/png', 'application/octet-stream', 'text/html']),
    });
  }
  return files;
}

export async function fuzzUploads(app: FastifyInstance, cookie: string, files: HostileFile[]) {
  const failures: string[] = [];
  let accepted = 0;
  let refused = 0;
  const acceptedKinds: Record<string, number> = {};
  for (let i = 0; i < files.length; i++) {
    const f = files[i]!;
    const body = multipart([f]);
    const res = await app.inject({
      method: 'POST',
      url: '/api/photos',
      headers: { cookie, ...body.headers },
      payload: body.payload,
    });
    judge(`upload #${i} ${f.kind}`, res.statusCode, res.body, failures);
    if (res.statusCode === 201) {
      accepted += 1;
      acceptedKinds[f.kind] = (acceptedKinds[f.kind] ?? 0) + 1;
    } else if (res.statusCode >= 400 && res.statusCode < 500) refused += 1;
    else failures.push(`upload #${i} ${f.kind} -> unexpected ${res.statusCode}`);
  }
  return { files: files.length, accepted, refused, acceptedKinds, failures };
}

export async function runHostileUploads(t: TestApp, seed: number, count: number) {
  const { cookie } = await signUp(t.app);
  // Premium, so the free plan's 50-photo limit does not turn late files into 403s.
  await t.app.inject({ method: 'POST', url: '/api/subscription', headers: { cookie }, payload: { plan: 'yearly' } });
  const files = await hostileImages(rng(seed), count);
  const out = await fuzzUploads(t.app, cookie, files);
  const photos = (await t.app.inject({ url: '/api/photos', headers: { cookie } })).json() as Array<{
    id: string;
    isDemo: boolean;
    thumbnailUrl: string;
  }>;
  const uploaded = photos.filter((p) => !p.isDemo);
  // Every ingested photo is whole: its thumbnail is served.
  for (const p of uploaded) {
    const th = await t.app.inject({ url: p.thumbnailUrl, headers: { cookie } });
    if (th.statusCode !== 200 || th.rawPayload.length === 0)
      out.failures.push(`photo ${p.id}: thumbnail ${th.statusCode}`);
  }
  return { out, uploaded: uploaded.length, consistency: await blobConsistency(t.database.db, t.config.blobDir) };
}
