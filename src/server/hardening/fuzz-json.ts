/**
 * The JSON fuzzer: seeded mutations of requests that would pass each route's schema, sent to every
 * endpoint in the route table; every answer is judged by `judge` (support.ts).
 */
import type { FastifyInstance, InjectOptions } from 'fastify';
import type { RouteEntry } from '../http/route-table';
import { fillPath, judge, validSample, type Rng } from './support';

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
