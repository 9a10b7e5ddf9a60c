import type { FastifyInstance, InjectOptions } from 'fastify';
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import type { RouteEntry } from '../http/route-table.js';
import { signUp, type TestApp } from '../test/harness.js';
import { blobConsistency, fillPath, multipart, rng, validSample, type Rng } from './support.js';

/** Routes the JSON fuzzer leaves alone: they would end its own session mid-run. */
const SKIP = new Set(['POST /api/auth/logout']);

export interface FuzzOutcome {
  requests: number;
  byStatus: Record<string, number>;
  /** Every answer that broke the promise: a 5xx, or a 4xx without a clear message. */
  failures: string[];
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const HOSTILE_STRINGS = [
  '',
  ' ',
  '\u0000',
  '\uD800',
  '\uFFFF',
  '😀'.repeat(50),
  "' OR 1=1 --",
  '<script>alert(1)</script>',
  '../../../../etc/passwd',
  '%00',
  '${jndi:ldap://x}',
  '__proto__',
  'NaN',
  '-1',
  '1e309',
  'true',
  '00000000-0000-0000-0000-000000000000',
  'demo',
];
const HOSTILE_VALUES: Json[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  -1e308,
  1e308,
  Number.MAX_SAFE_INTEGER + 2,
  [],
  {},
  [null],
  { $gt: '' },
  ...HOSTILE_STRINGS,
];

/** encodeURIComponent that also takes lone surrogates (as their raw, invalid UTF-8 bytes). */
const enc = (s: string) => {
  try {
    return encodeURIComponent(s);
  } catch {
    return '%ED%A0%80';
  }
};

function deepNest(depth: number, array: boolean): string {
  return array ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

/** One generated request against a route: a mutation of a body that would pass its schema. */
function mutate(route: RouteEntry, r: Rng, ownId: string, cookie: string): InjectOptions {
  const headers: Record<string, string> = route.public ? {} : { cookie };
  let url = fillPath(route.url, (_seg, param) =>
    param === 'variant'
      ? r.pick(['original', 'preview', 'thumbnail', 'x', ''])
      : r.next() < 0.6
        ? ownId
        : r.pick(HOSTILE_STRINGS.map(enc)),
  );
  const base = (validSample(route.schema?.body, () => ownId) ?? {}) as Json;
  const query = (validSample(route.schema?.querystring, () => ownId) ?? {}) as Record<string, Json>;
  const kind = r.int(0, 15);
  let payload: string | Buffer | undefined;
  let contentType: string | undefined = 'application/json';
  const asObj = (v: Json): Record<string, Json> =>
    v && typeof v === 'object' && !Array.isArray(v) ? { ...v } : ({} as Record<string, Json>);
  const fields = Object.keys(asObj(base));
  const field = fields.length ? r.pick(fields) : 'x';
  switch (kind) {
    case 0: // wrong type for one field
      payload = JSON.stringify({ ...asObj(base), [field]: r.pick(HOSTILE_VALUES) });
      break;
    case 1: {
      // missing a field
      const o = asObj(base);
      delete o[field];
      payload = JSON.stringify(o);
      break;
    }
    case 2: // extra fields, prototype pollution attempts
      payload = `{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}},"userId":"${ownId}","extra${r.int(0, 9)}":1${fields.length ? ',' + JSON.stringify(base).slice(1, -1) : ''}}`;
      break;
    case 3: // huge string in a field (under the 1 MiB body limit)
      payload = JSON.stringify({ ...asObj(base), [field]: 'x'.repeat(r.int(10_000, 900_000)) });
      break;
    case 4: // deep nesting
      payload =
        r.next() < 0.5
          ? deepNest(r.int(1_000, 100_000), r.next() < 0.5)
          : JSON.stringify({ ...asObj(base), [field]: JSON.parse(deepNest(500, true)) });
      break;
    case 5: {
      // invalid UTF-8 inside a JSON string
      const json = Buffer.from(JSON.stringify({ ...asObj(base), [field]: 'AAAA' }));
      const at = json.indexOf('AAAA');
      const bad = Buffer.from(
        r.pick([
          [0xff, 0xfe],
          [0xc3, 0x28],
          [0xe2, 0x82],
          [0xed, 0xa0, 0x80],
          [0xf8, 0x88, 0x80, 0x80],
        ]),
      );
      payload =
        at >= 0 ? Buffer.concat([json.subarray(0, at), bad, json.subarray(at + 4)]) : Buffer.concat([bad, json]);
      break;
    }
    case 6: // oversize body
      payload = Buffer.alloc(r.int(1_100_000, 3_000_000), 0x61);
      break;
    case 7: // wrong content type
      contentType = r.pick([
        'text/plain',
        'application/xml',
        'application/x-www-form-urlencoded',
        'image/png',
        'multipart/form-data',
        'application/json; charset=utf-16',
        '',
      ]);
      payload = contentType.includes('form') ? 'a=1&b=2' : JSON.stringify(base);
      break;
    case 8: // malformed JSON
      payload = r.pick([
        '{',
        '{"a":}',
        "{'a':1}",
        '[1,2',
        'undefined',
        '{"a":1}{"b":2}',
        '\u0000',
        'nul',
        '{"a":1,}',
        JSON.stringify(base).slice(0, -1),
      ]);
      break;
    case 9: // top-level non-objects
      payload = JSON.stringify(r.pick<Json>([null, 1, 'x', [], [base], true]));
      break;
    case 10: // empty body with a JSON content type
      payload = '';
      break;
    case 11: // every field hostile
      payload = JSON.stringify(Object.fromEntries(fields.map((f) => [f, r.pick(HOSTILE_VALUES)])));
      break;
    case 12: {
      // query string fuzz
      const q = { ...query, [Object.keys(query)[0] ?? 'x']: r.pick(HOSTILE_STRINGS), [`extra${r.int(0, 9)}`]: 'x' };
      url +=
        '?' +
        new URLSearchParams(Object.entries(q).map(([k, v]) => [k, String(v)])) +
        r.pick(['', '&a[b]=1', '&limit=-5', '&limit=1e9', '&cursor=%FF', '&photoId[]=1']);
      payload = route.schema?.body ? JSON.stringify(base) : undefined;
      break;
    }
    case 13: // the path itself: overlong, encoded, traversal
      url = fillPath(route.url, () =>
        r.pick(['a'.repeat(5000), '%2e%2e%2f%2e%2e', '%FF%FE', '..%00', '%', encodeURIComponent('😀'), '1 OR 1=1']),
      );
      payload = route.schema?.body ? JSON.stringify(base) : undefined;
      break;
    case 14: // a valid request (keeps the mutated ones honest: the base reaches the service)
      payload = route.schema?.body ? JSON.stringify(base) : undefined;
      if (route.schema?.querystring)
        url += '?' + new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
      break;
    default: // numbers at the edges
      payload = JSON.stringify({ ...asObj(base), [field]: r.pick<Json>([-0, 2 ** 31, -(2 ** 63), 1e-320, 0.1 + 0.2]) });
  }
  if (payload === undefined) contentType = undefined;
  if (contentType !== undefined) headers['content-type'] = contentType;
  return { method: route.method as 'POST', url, headers, payload };
}

/** The promise for one answer: never 5xx; a 4xx carries a non-empty `message`. */
export function judge(label: string, status: number, body: string, failures: string[]) {
  if (status >= 500) failures.push(`${label} -> ${status} ${body.slice(0, 200)}`);
  else if (status >= 400) {
    let message: unknown;
    try {
      message = (JSON.parse(body) as { message?: unknown }).message;
    } catch {
      // not JSON
    }
    if (typeof message !== 'string' || message.trim().length < 3)
      failures.push(`${label} -> ${status} without a clear message: ${body.slice(0, 200)}`);
  }
}

export async function fuzzJson(
  app: FastifyInstance,
  opts: { r: Rng; requests: number; cookie: string; ownId: string },
): Promise<FuzzOutcome> {
  const routes = app.routeTable.filter((rt) => !SKIP.has(`${rt.method} ${rt.url}`));
  const out: FuzzOutcome = { requests: 0, byStatus: {}, failures: [] };
  for (let i = 0; i < opts.requests; i++) {
    const route = routes[i % routes.length]!;
    const req = mutate(route, opts.r, opts.ownId, opts.cookie);
    const res = await app.inject(req);
    out.requests += 1;
    out.byStatus[res.statusCode] = (out.byStatus[res.statusCode] ?? 0) + 1;
    judge(`#${i} ${req.method} ${String(req.url).slice(0, 120)}`, res.statusCode, res.body, out.failures);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Hostile image files

function crc32(buf: Buffer): number {
  let c = ~0;
  for (const byte of buf) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return ~c >>> 0;
}
function pngChunk(type: string, data: Buffer) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}
/** A valid PNG header claiming w x h pixels over a few real rows: tiny on disk, huge when decoded. */
function pngBomb(w: number, h: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8;
  ihdr[9] = 0;
  const rows = deflateSync(Buffer.alloc(Math.min(w + 1, 70_000) * 16), { level: 9 });
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', rows),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}
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
