/**
 * The per-route fuzzer's case generator (route-fuzz.api.test.ts): from one valid request for a
 * route, seeded hostile variants of it, each changing one thing (a field's type, a missing or extra
 * field, a prototype key, a huge or NaN-like value, unicode and NUL, the content type, a path
 * parameter, the query string). Each variant says whether the server must refuse it.
 */
import type { InjectOptions } from 'fastify';
import { z } from 'zod';
import { PROTOTYPE_KEY_MESSAGE } from '../http/json-body';
import type { Rng } from './support';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** One valid request for a route, as its fixture makes it. */
export interface ValidRequest {
  params?: Record<string, string>;
  query?: Record<string, string>;
  /** A JSON body. */
  body?: Json;
  /**
   * A body sent as these bytes with these headers (a multipart upload, a signed webhook);
   * `tamperRefused`: a body cut short or with a byte changed must be refused (it is signed).
   */
  raw?: { payload: string | Buffer; headers: Record<string, string>; tamperRefused?: boolean };
  headers?: Record<string, string>;
}

export interface FuzzCase {
  label: string;
  request: InjectOptions;
  /** The server must answer 4xx: the variant breaks the route's contract (not merely odd). */
  mustRefuse: boolean;
  /** The refusal's message, where one message is the only right one. */
  message?: string;
}

/** What a hostile path parameter may be, besides the malformed values below: another user's ids. */
export interface ForeignIds {
  ids: string[];
}

const WRONG_TYPES: Json[] = ['x', 0, 1, true, false, null, [], {}, ['x'], { a: 1 }];
const HUGE_NUMBERS: Json[] = [1e308, -1e308, 2 ** 53 + 2, -(2 ** 63), 1e21, 5e-324, 2 ** 31, -0];
const NAN_LIKE = ['NaN', 'Infinity', '-Infinity', '1e999', '0x10', ' 7 ', '', '-', '1_000', 'null', 'undefined'];
const NEG_FRACTIONAL: Json[] = [-1, -0.5, 0.5, 1.5, -(2 ** 31), 99.999];
const UNICODE = [
  '😀'.repeat(30),
  '\u202Eevil\u202C',
  'e\u0301\u0301\u0301',
  '\uD800',
  '\uDFFF\uD800',
  '\u0000',
  'a\u0000b',
  '\uFEFF\u200B',
  'Ω'.repeat(2_000),
  '\u{10FFFF}',
  '<img src=x onerror=alert(1)>',
];
const MALFORMED_JSON = ['{', '{"a":}', "{'a':1}", '[1,2', 'undefined', '{"a":1}{"b":2}', 'nul', '{"a":1,}', 'NaN'];
const BAD_PATH_VALUES = [
  'not-an-id',
  '0',
  '-1',
  '1.5',
  'null',
  'undefined',
  '..',
  '%2e%2e',
  '..%2f..%2fetc%2fpasswd',
  '%00',
  'a'.repeat(3_000),
  '%F0%9F%98%80',
  '%FF%FE',
  '%',
  '%zz',
  'a%2Fb',
  '00000000-0000-0000-0000-000000000000',
  '__proto__',
  'constructor',
];

function isObject(v: Json | undefined): v is { [k: string]: Json } {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

const typeName = (v: Json | undefined) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** The required top-level fields of a route's zod body schema. */
export function requiredFields(schema: unknown): Set<string> {
  if (!(schema instanceof z.ZodType)) return new Set();
  const js = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as { required?: string[] };
  return new Set(js.required ?? []);
}

function pathOf(url: string, params: Record<string, string>): string {
  return url.replace(/:(\w+)/g, (_m, name: string) => params[name] ?? 'x');
}

function queryString(pairs: Array<[string, string]>): string {
  return pairs.length ? '?' + pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&') : '';
}

/**
 * Builds the inject options of a request. The query is given as pairs (repeated keys and raw
 * bracket syntax survive); the body as JSON, as text, or as raw bytes.
 */
export function build(
  method: string,
  url: string,
  parts: {
    params: Record<string, string>;
    query: Array<[string, string]>;
    rawQuery?: string;
    headers: Record<string, string>;
    payload?: string | Buffer;
  },
): InjectOptions {
  const qs = queryString(parts.query) + (parts.rawQuery ? (parts.query.length ? '&' : '?') + parts.rawQuery : '');
  return {
    method: method as 'POST',
    url: pathOf(url, parts.params) + qs,
    headers: parts.headers,
    ...(parts.payload !== undefined ? { payload: parts.payload } : {}),
  };
}

/**
 * The `index`th seeded case for one route, made from `valid`: case 0 is the valid request itself
 * (so the route is known to work with it), then one of each kind that applies, then seeded picks.
 * Each case is made from its own valid request, so one that spends what it names (a photo to
 * delete, a reset token, an ad break) leaves the next its own.
 */
export function fuzzCase(
  route: { method: string; url: string; bodySchema?: unknown },
  valid: ValidRequest,
  r: Rng,
  foreign: ForeignIds,
  index: number,
): FuzzCase {
  const jsonBody = valid.body !== undefined;
  const rawBody = valid.raw !== undefined;
  const hasBody = jsonBody || rawBody;
  const params = valid.params ?? {};
  const query = Object.entries(valid.query ?? {});
  const baseHeaders = { ...(valid.headers ?? {}), ...(valid.raw?.headers ?? {}) };
  const required = requiredFields(route.bodySchema);
  const body = valid.body;
  const fields = isObject(body) ? Object.keys(body) : [];
  const validPayload = rawBody ? valid.raw!.payload : jsonBody ? JSON.stringify(body) : undefined;
  const jsonHeaders: Record<string, string> = jsonBody ? { 'content-type': 'application/json' } : {};

  const make = (
    label: string,
    mustRefuse: boolean,
    over: Partial<{
      params: Record<string, string>;
      query: Array<[string, string]>;
      rawQuery: string;
      headers: Record<string, string>;
      payload: string | Buffer | undefined;
    }> = {},
  ): FuzzCase => ({
    label,
    mustRefuse,
    request: build(route.method, route.url, {
      params: over.params ?? params,
      query: over.query ?? query,
      rawQuery: over.rawQuery,
      headers: over.headers ?? { ...baseHeaders, ...jsonHeaders },
      payload: 'payload' in over ? over.payload : validPayload,
    }),
  });
  const withField = (field: string, value: Json) => JSON.stringify({ ...(body as object), [field]: value });

  type Gen = () => FuzzCase;
  const gens: Array<[string, Gen]> = [];
  if (jsonBody && fields.length) {
    gens.push([
      'wrong type',
      () => {
        const f = r.pick(fields);
        const v = r.pick(WRONG_TYPES.filter((x) => typeName(x) !== typeName((body as Record<string, Json>)[f])));
        return make(`${f}: ${JSON.stringify(v)}`, true, { payload: withField(f, v) });
      },
    ]);
    gens.push([
      'missing field',
      () => {
        const f = r.pick(fields);
        const o = { ...(body as Record<string, Json>) };
        delete o[f];
        return make(`without ${f}`, required.has(f), { payload: JSON.stringify(o) });
      },
    ]);
    gens.push([
      'huge string',
      () => {
        const f = r.pick(fields);
        return make(`${f}: huge string`, typeof (body as Record<string, Json>)[f] !== 'string', {
          payload: withField(f, 'x'.repeat(r.pick([5_000, 200_000, 900_000]))),
        });
      },
    ]);
    gens.push([
      'huge number',
      () => {
        const f = r.pick(fields);
        const v = r.pick(HUGE_NUMBERS);
        return make(`${f}: ${String(v)}`, typeof (body as Record<string, Json>)[f] !== 'number', {
          payload: withField(f, v),
        });
      },
    ]);
    gens.push([
      'NaN-like string',
      () => {
        const f = r.pick(fields);
        const v = r.pick(NAN_LIKE);
        return make(`${f}: ${JSON.stringify(v)}`, typeof (body as Record<string, Json>)[f] !== 'string', {
          payload: withField(f, v),
        });
      },
    ]);
    gens.push([
      'negative or fractional',
      () => {
        const f = r.pick(fields);
        const v = r.pick(NEG_FRACTIONAL);
        return make(`${f}: ${String(v)}`, typeof (body as Record<string, Json>)[f] !== 'number', {
          payload: withField(f, v),
        });
      },
    ]);
    gens.push([
      'unicode',
      () => {
        const f = r.pick(fields);
        const v = r.pick(UNICODE);
        // A NUL is refused by the JSON parser whatever the field.
        return make(
          `${f}: unicode ${JSON.stringify(v.slice(0, 12))}`,
          v.includes('\u0000') || typeof (body as Record<string, Json>)[f] !== 'string',
          {
            payload: withField(f, v),
          },
        );
      },
    ]);
    const nested = fields.filter((f) => isObject((body as Record<string, Json>)[f]));
    if (nested.length) {
      gens.push([
        'nested field',
        () => {
          const f = r.pick(nested);
          const inner = (body as Record<string, { [k: string]: Json }>)[f]!;
          const k = r.pick(Object.keys(inner));
          const v = r.pick<Json>([...WRONG_TYPES, ...HUGE_NUMBERS, ...NEG_FRACTIONAL, ...NAN_LIKE, ...UNICODE]);
          const wrongType = typeName(v) !== typeName(inner[k]) || (typeof v === 'string' && v.includes('\u0000'));
          return make(`${f}.${k}: ${JSON.stringify(v)?.slice(0, 20)}`, wrongType, {
            payload: withField(f, { ...inner, [k]: v }),
          });
        },
      ]);
    }
    const lists = fields.filter((f) => Array.isArray((body as Record<string, Json>)[f]));
    if (lists.length) {
      gens.push([
        'list of ids',
        () => {
          const f = r.pick(lists);
          const own = (body as Record<string, Json[]>)[f]!;
          const [label, list, refuse] = r.pick<[string, Json[], boolean]>([
            ['own id twice', [...own, ...own], false],
            ['own and foreign ids', [...own, r.pick(foreign.ids)], true],
            ['own and malformed ids', [...own, r.pick(BAD_PATH_VALUES)], true],
            ['own id and null', [...own, null], true],
            ['own id in capitals', own.map((x) => (typeof x === 'string' ? x.toUpperCase() : x)), false],
            ['a thousand and one ids', Array.from({ length: 1_001 }, () => own[0] ?? 'x'), true],
          ]);
          return make(`${f}: ${label}`, refuse, { payload: withField(f, list) });
        },
      ]);
    }
  }
  if (jsonBody) {
    gens.push([
      'extra fields',
      () =>
        make('extra fields', false, {
          payload: JSON.stringify({
            ...(isObject(body) ? body : {}),
            [`extra${r.int(0, 99)}`]: r.pick(WRONG_TYPES),
            isAdmin: true,
            userId: r.pick(foreign.ids),
          }),
        }),
    ]);
    gens.push([
      'prototype key',
      () => {
        const inner = isObject(body) ? JSON.stringify(body).slice(1, -1) : '';
        const key = r.pick([
          '"__proto__":{"isAdmin":true}',
          '"constructor":{"prototype":{"isAdmin":true}}',
          '"__proto__":null',
        ]);
        return {
          ...make(`prototype key ${key.slice(0, 16)}`, true, { payload: `{${key}${inner ? ',' + inner : ''}}` }),
          message: PROTOTYPE_KEY_MESSAGE,
        };
      },
    ]);
    gens.push([
      'top-level non-object',
      () => {
        const v = r.pick<Json>([null, 1, 'x', [], [body ?? null], true]);
        return make(`body ${JSON.stringify(v)?.slice(0, 20)}`, true, { payload: JSON.stringify(v) });
      },
    ]);
    gens.push(['malformed JSON', () => make('malformed JSON', true, { payload: r.pick(MALFORMED_JSON) })]);
    gens.push(['empty JSON body', () => make('empty JSON body', true, { payload: '' })]);
    gens.push(['NUL byte', () => make('NUL byte in JSON', true, { payload: withField(fields[0] ?? 'x', 'a\u0000') })]);
  }
  if (hasBody) {
    gens.push([
      'wrong content type',
      () => {
        const type = r.pick([
          'text/plain',
          'application/x-www-form-urlencoded',
          'multipart/form-data',
          'application/xml',
          'image/jpeg',
          // Read as JSON (the bytes are UTF-8 whatever the label says): odd, not a breach.
          'application/json; charset=utf-16',
        ]);
        const payload = type.includes('urlencoded') ? 'a=1&b=2' : validPayload;
        return make(`content-type ${type}`, !type.includes('charset'), {
          headers: { ...baseHeaders, 'content-type': type },
          payload,
        });
      },
    ]);
    if (rawBody) {
      gens.push([
        'tampered body',
        () => {
          const bytes = Buffer.from(valid.raw!.payload);
          const at = r.int(0, bytes.length - 1);
          const cut = r.next() < 0.5;
          const payload = cut ? bytes.subarray(0, at) : Buffer.from(bytes);
          if (!cut) payload[at] = payload[at]! ^ 0x20;
          return make(`body ${cut ? `cut at ${at}` : `byte ${at} changed`}`, !!valid.raw!.tamperRefused, { payload });
        },
      ]);
    }
    gens.push([
      'no content type',
      () => {
        const headers = { ...baseHeaders };
        delete headers['content-type'];
        return make('no content-type', true, { headers, payload: validPayload });
      },
    ]);
  }
  const names = Object.keys(params).filter((p) => p !== 'variant');
  if (names.length) {
    gens.push([
      "another user's id",
      () => {
        const p = r.pick(names);
        return make(`${p} = a foreign id`, true, { params: { ...params, [p]: r.pick(foreign.ids) } });
      },
    ]);
    gens.push([
      'malformed id',
      () => {
        const p = r.pick(names);
        const v = r.pick([...BAD_PATH_VALUES, `${params[p]}%20`, `${params[p]}x`]);
        return make(`${p} = ${v.slice(0, 24)}`, true, { params: { ...params, [p]: v } });
      },
    ]);
    // The same id in capitals is the same UUID to the database: the owner's own, not a breach.
    gens.push([
      'id in capitals',
      () => {
        const p = r.pick(names);
        return make(`${p} in capitals`, false, { params: { ...params, [p]: params[p]!.toUpperCase() } });
      },
    ]);
  }
  if ('variant' in params) {
    gens.push([
      'variant',
      () => {
        const v = r.pick(['x', 'ORIGINAL', '..', '%2e%2e', 'a'.repeat(500), '__proto__', 'original%00']);
        return make(`variant = ${v.slice(0, 16)}`, true, { params: { ...params, variant: v } });
      },
    ]);
  }
  gens.push([
    'repeated query key',
    () => {
      const [k, v] = query.length ? r.pick(query) : ['limit', '10'];
      return make(`?${k} twice`, query.length > 0, { query: [...query, [k, v === '1' ? '2' : v]] });
    },
  ]);
  gens.push([
    'query array',
    () => {
      const k = query.length ? r.pick(query)[0] : 'id';
      const raw = r.pick([`${k}[]=1`, `${k}[0]=1&${k}[1]=2`, `${k}[a]=1`]);
      return make(`?${raw}`, false, { query: query.filter(([q]) => q !== k), rawQuery: raw });
    },
  ]);
  gens.push([
    'query prototype',
    () => {
      const raw = r.pick([
        '__proto__=x',
        '__proto__[isAdmin]=1',
        'constructor[prototype][isAdmin]=1',
        'hasOwnProperty=1',
      ]);
      return make(`?${raw}`, false, { rawQuery: raw });
    },
  ]);
  if (query.length) {
    gens.push([
      'hostile query value',
      () => {
        const [k] = r.pick(query);
        const v = r.pick([...NAN_LIKE, 'x'.repeat(10_000), '-5', '0.5', '1e9', '\u0000', '😀', '%FF']);
        return make(`?${k}=${v.slice(0, 16)}`, false, {
          query: query.filter(([q]) => q !== k),
          rawQuery: `${k}=${v === '%FF' ? v : encodeURIComponent(v)}`,
        });
      },
    ]);
  }
  gens.push([
    'unknown query keys',
    () => make('unknown query keys', false, { rawQuery: `extra=${r.int(0, 9)}&userId=${foreign.ids[0]}` }),
  ]);
  if (valid.headers && Object.keys(valid.headers).length) {
    gens.push([
      'hostile header',
      () => {
        const h = r.pick(Object.keys(valid.headers!));
        const v = r.pick(['', ' ', 'x'.repeat(5_000), foreign.ids[0]!, '../..', '\u00ff', 'null']);
        return make(`${h}: ${v.slice(0, 16)}`, true, { headers: { ...baseHeaders, ...jsonHeaders, [h]: v } });
      },
    ]);
  }

  if (index === 0) return make('valid', false);
  // One of each kind first, so every kind meets every route it applies to; then seeded picks.
  return (gens[index - 1] ?? r.pick(gens))[1]();
}
