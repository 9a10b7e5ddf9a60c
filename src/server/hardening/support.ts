import { sql, type SQL } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { createHash, randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { z } from 'zod';
import type { Db } from '../db/client';
import { startStripeDouble, type StripeDouble } from '../features/payments/stripe-test-double';
import { createTestApp, playAdBreak, signUp, type TestApp } from '../test/harness';

export { rng, type Rng } from './proc/rng';

/** A multipart body with one part per file, in field `photos`. */
export function multipart(files: Array<{ name: string; bytes: Buffer; type?: string }>, field = 'photos') {
  const boundary = '----eyevu' + randomUUID().replace(/-/g, '');
  const chunks: Buffer[] = [];
  for (const f of files) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${f.name}"\r\nContent-Type: ${f.type ?? 'image/jpeg'}\r\n\r\n`,
      ),
      f.bytes,
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** A small JPEG whose bytes differ per seed (so every blob is distinct). */
export function jpeg(seed: number, size = 48): Promise<Buffer> {
  return sharp({
    create: {
      width: size + (seed % 17),
      height: size,
      channels: 3,
      background: { r: (seed * 37) % 256, g: (seed * 91) % 256, b: (seed * 53) % 256 },
    },
  })
    .jpeg()
    .toBuffer();
}

export interface SeededUser {
  cookie: string;
  user: { id: string; email: string };
  password: string;
  photoId: string;
  albumId: string;
  activityId: string;
  adBreakId: string;
}

/** A user with an uploaded photo, a manual album, a recorded ad break, a trial subscription and a filter version. */
export async function seedUser(app: FastifyInstance, seed: number): Promise<SeededUser> {
  const { cookie, user, body } = await signUp(app);
  const m = multipart([{ name: `own-${seed}.jpg`, bytes: await jpeg(seed) }]);
  const up = await app.inject({
    method: 'POST',
    url: '/api/photos',
    headers: { cookie, ...m.headers },
    payload: m.payload,
  });
  if (up.statusCode !== 201) throw new Error(`upload failed ${up.statusCode}: ${up.body}`);
  const photoId: string = up.json().results[0].photo.id;
  const album = await app.inject({
    method: 'POST',
    url: '/api/albums',
    headers: { cookie },
    payload: { name: `Album ${seed}`, photoIds: [photoId] },
  });
  if (album.statusCode !== 201) throw new Error(`album failed ${album.statusCode}: ${album.body}`);
  const sub = await app.inject({
    method: 'POST',
    url: '/api/subscription',
    headers: { cookie },
    payload: { plan: 'monthly' },
  });
  if (sub.statusCode !== 201) throw new Error(`trial failed ${sub.statusCode}: ${sub.body}`);
  const { adBreak, res: act } = await playAdBreak(app, cookie, {
    app: 'YouTube',
    gameData: { gameType: 'memory', score: 60, completed: true },
  });
  if (act.statusCode !== 201) throw new Error(`activity failed ${act.statusCode}: ${act.body}`);
  const filter = await app.inject({
    method: 'POST',
    url: '/api/photo-filters/apply',
    headers: { cookie },
    payload: { photoId, filterName: 'vintage', intensity: 100 },
  });
  if (filter.statusCode !== 200) throw new Error(`filter failed ${filter.statusCode}: ${filter.body}`);
  return {
    cookie,
    user,
    password: body.password,
    photoId,
    albumId: album.json().id,
    activityId: act.json().activity.id,
    adBreakId: adBreak.id,
  };
}

function rowsOf(res: unknown): Record<string, unknown>[] {
  return (res as { rows: Record<string, unknown>[] }).rows;
}

/**
 * A fingerprint of everything a user owns: every table with a `user_id` column (found in the
 * catalogue, so new tables are included), plus album membership and photo versions.
 */
export async function userFingerprint(db: Db, userId: string): Promise<Record<string, string>> {
  const tables = rowsOf(
    await db.execute(sql`select table_name from information_schema.columns
      where table_schema = 'public' and column_name = 'user_id' order by table_name`),
  ).map((r) => String(r.table_name));
  const out: Record<string, string> = {};
  const digest = (rows: unknown[]) => createHash('sha256').update(JSON.stringify(rows)).digest('hex');
  for (const t of tables) {
    out[t] = digest(
      rowsOf(await db.execute(sql`select * from ${sql.identifier(t)} where user_id = ${userId} order by 1, 2`)),
    );
  }
  out.album_photos = digest(
    rowsOf(
      await db.execute(sql`select ap.* from album_photos ap join albums a on a.id = ap.album_id
        where a.user_id = ${userId} order by 1, 2`),
    ),
  );
  out.photo_versions = digest(
    rowsOf(
      await db.execute(sql`select v.* from photo_versions v join photos p on p.id = v.photo_id
        where p.user_id = ${userId} order by 1`),
    ),
  );
  out.users = digest(rowsOf(await db.execute(sql`select * from users where id = ${userId}`)));
  return out;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/**
 * A request body that passes the route's zod schema (so it reaches the service), with every id
 * field set to `idFor(fieldName)`.
 */
export function validSample(schema: unknown, idFor: (field: string) => string): Json | undefined {
  if (!(schema instanceof z.ZodType)) return undefined;
  const js = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return fromJsonSchema(js, '', idFor);
}

function fromJsonSchema(s: Record<string, unknown>, field: string, idFor: (f: string) => string): Json {
  if (Array.isArray(s.enum)) return s.enum[0] as Json;
  if ('const' in s) return s.const as Json;
  const anyOf = (s.anyOf ?? s.oneOf) as Record<string, unknown>[] | undefined;
  if (anyOf?.length) return fromJsonSchema(anyOf[0]!, field, idFor);
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, Record<string, unknown>>;
      const required = new Set((s.required ?? []) as string[]);
      const o: Record<string, Json> = {};
      // Required fields and every id (optional ids included: they are what the matrix is about).
      for (const [k, v] of Object.entries(props))
        if (required.has(k) || /id$/i.test(k)) o[k] = fromJsonSchema(v, k, idFor);
      return o;
    }
    case 'array': {
      const item = fromJsonSchema((s.items ?? {}) as Record<string, unknown>, field.replace(/s$/, ''), idFor);
      return [item];
    }
    case 'string':
      if (/id$/i.test(field)) return idFor(field);
      if (s.format === 'email') return 'someone@example.com';
      return 'sample';
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? s.minimum : 0;
    case 'boolean':
      return true;
    default:
      return 'sample';
  }
}

export function fillPath(url: string, idFor: (segmentBefore: string, param: string) => string): string {
  const parts = url.split('/');
  return parts.map((p, i) => (p.startsWith(':') ? idFor(parts[i - 1] ?? '', p.slice(1)) : p)).join('/');
}

export const WEBHOOK_SECRET = 'whsec_hardening';
/** Config that makes payments real (against the Stripe test double), so no route answers 503 for lack of it. */
export const stripeConfig = (api: { host: string; port: number; protocol: 'http' | 'https' }) => ({
  stripe: { secretKey: 'sk_test_eyevu', webhookSecret: WEBHOOK_SECRET, publicKey: 'pk_test_eyevu' },
  stripeApi: api,
});

/**
 * Rows and blob files agree: every key a photo or version references is on disk, no blob is
 * unreferenced (`orphans`), and no half-written temp file is left.
 */
export async function blobConsistency(db: Db, blobDir: string) {
  const { readdir } = await import('node:fs/promises');
  const referenced = new Set(
    rowsOf(
      await db.execute(sql`select original_key k from photos union select preview_key from photos
        union select thumbnail_key from photos union select original_key from photo_versions
        union select preview_key from photo_versions union select thumbnail_key from photo_versions`),
    ).map((r) => String(r.k)),
  );
  const onDisk = new Set<string>();
  const temp: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const p = `${dir}/${e.name}`;
      if (e.isDirectory()) await walk(p);
      else if (e.name.endsWith('.tmp')) temp.push(p);
      else onDisk.add(e.name);
    }
  };
  await walk(blobDir);
  const [{ n }] = rowsOf(await db.execute(sql`select count(*)::int n from photos`)) as Array<{ n: number }>;
  return {
    photoRows: Number(n),
    missing: [...referenced].filter((k) => !onDisk.has(k)),
    orphans: [...onDisk].filter((k) => !referenced.has(k)),
    temp,
  };
}

/** A fresh app and one signed-up user: what an audit file's tests share. */
export async function appWithOneUser(): Promise<{ t: TestApp; cookie: string; userId: string }> {
  const t = await createTestApp();
  const {
    cookie,
    user: { id: userId },
  } = await signUp(t.app);
  return { t, cookie, userId };
}

/** An app whose payments go to a local stand-in for Stripe's API (`stripe.requests` lists them). */
export async function appWithStripeDouble(): Promise<{ t: TestApp; stripe: StripeDouble; close(): Promise<void> }> {
  const stripe = await startStripeDouble();
  const t = await createTestApp(stripeConfig(stripe.api));
  return {
    t,
    stripe,
    async close() {
      await t.close();
      await stripe.close();
    },
  };
}

/** A new account that has checked out Premium, and how many invoice lists Stripe has served so far. */
export async function subscribedAccount(t: TestApp, stripe: StripeDouble) {
  const { cookie } = await signUp(t.app);
  const checkout = await t.app.inject({
    method: 'POST',
    url: '/api/create-subscription',
    headers: { cookie },
    payload: { tier: 'premium', billingCycle: 'monthly' },
  });
  if (checkout.statusCode !== 200) throw new Error(`checkout ${checkout.statusCode}: ${checkout.body}`);
  const invoiceLists = () => stripe.requests.filter((r) => r.method === 'GET' && r.path === '/v1/invoices').length;
  return { cookie, invoiceLists };
}

/** The `n` of a `select count(*)::int n ...` query. */
export async function countOf(db: Db, query: SQL): Promise<number> {
  return Number((rowsOf(await db.execute(query)) as Array<{ n: number }>)[0]!.n);
}

/** Where the long suite collects its figures; `scripts/hardening.mjs` prints them as a table. */
export async function recordFigure(promise: string, figure: string, value: string | number) {
  const file = process.env.HARDENING_FIGURES;
  if (!file) return;
  const { appendFile } = await import('node:fs/promises');
  await appendFile(file, JSON.stringify({ promise, figure, value }) + '\n');
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
