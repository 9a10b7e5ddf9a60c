import { sql } from 'drizzle-orm';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACHIEVEMENTS, skipReward } from '@domain/rewards';
import { FILTER_IDS } from '@domain/filters';
import { FREE_PHOTO_LIMIT } from '@domain/plans';
import { SIMULATED_ADS } from '@domain/games/scoring';
import { DEFAULT_RATE_LIMITS, type RateLimitTable } from '../http/rate-limits';
import { startStripeDouble, type StripeDouble } from '../features/payments/stripe-test-double';
import { createTestApp, sessionCookieFrom, signUp, startAdBreak, testDbKind, type TestApp } from '../test/harness';
import { webhookDelivery } from '../test/stripe-webhook';
import {
  blobConsistency,
  jpeg,
  multipart,
  rng,
  seedUser,
  stripeConfig,
  WEBHOOK_SECRET,
  type SeededUser,
} from './support';

/**
 * The route fuzzer's complement: where it sends one hostile request at a time, this sends valid
 * (and a few foreign-id) requests from three users at once, against the same rows, in seeded bursts
 * (deterministic choices; the interleaving is the runtime's). Each burst: uploads at the Free plan's
 * photo limit and at the storage quota, deletes, favourites, albums, filter apply and revert, ad
 * breaks recorded twice at once beside a newer break's start, the daily login and activation
 * rewards twice at once, the trial, checkout and Stripe's webhook, cancel, and a sign-out while its
 * session's requests are in flight. After each burst the server's own state is checked: no 5xx, no
 * hang, no deadlock surfaced; the counters kept on rows (photo_library, points_totals) equal the
 * counted truth; the ledger holds only what the rules pay, once; plan limits held; no orphan or
 * cross-user row; what each user reads (gallery total, favourites, points) is the stored truth; a
 * bystander's rows never move.
 */
/** Another seed explores other bursts: `FUZZ_SEED=n`; the default is the one CI runs. */
const SEED = Number(process.env.FUZZ_SEED ?? 20261130);
const BURSTS = 18;
/** Bounds the whole run (setup excluded): the file stays well under a minute on either database. */
const MAX_REQUESTS = 700;
const REQUEST_BOUND_MS = 20_000;
/** The Free plan's storage in this file: B (large noisy photos) meets it, A (small ones) never. */
const FREE_QUOTA = 160_000;

let t: TestApp;
let stripe: StripeDouble;
let requests = 0;

interface Actor {
  name: string;
  cookie: string;
  id: string;
  /** Photos this actor owns as far as the answers told (a racing delete may have taken one). */
  photos: string[];
  /** Contents uploaded (some are sent again: the reward pays a content once). */
  contents: Buffer[];
  /** A trial or a paid plan was asked for: the Free plan's photo limit no longer binds. */
  everPaid: boolean;
  big: boolean;
  email: string;
}
let A: Actor;
let B: Actor;
let C: Actor;
let D: SeededUser;
let actors: Actor[];

const roomyLimits: RateLimitTable = Object.fromEntries(
  Object.entries(DEFAULT_RATE_LIMITS).map(([k, rules]) => [k, rules.map((rule) => ({ ...rule, max: 100_000 }))]),
);

/** A photo of mostly noise, ~25 KB: a few of them fill FREE_QUOTA. */
async function noisyJpeg(seed: number): Promise<Buffer> {
  const r = rng(seed);
  const side = 150;
  const raw = Buffer.alloc(side * side * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = Math.floor(r.next() * 256);
  return sharp(raw, { raw: { width: side, height: side, channels: 3 } })
    .jpeg({ quality: 92 })
    .toBuffer();
}

async function send(req: InjectOptions): Promise<LightMyRequestResponse> {
  requests += 1;
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer in ${REQUEST_BOUND_MS} ms: ${req.method} ${req.url}`)),
      REQUEST_BOUND_MS,
    );
  });
  try {
    return await Promise.race([t.app.inject(req), bound]);
  } finally {
    clearTimeout(timer);
  }
}

async function uploadAs(actor: Actor, files: Buffer[], cookie = actor.cookie) {
  const m = multipart(files.map((bytes, i) => ({ name: `${actor.name}-${requests}-${i}.jpg`, bytes })));
  const res = await send({
    method: 'POST',
    url: '/api/photos',
    headers: { cookie, ...m.headers },
    payload: m.payload,
  });
  if (res.statusCode < 300) {
    for (const r of res.json().results as Array<{ ok: boolean; photo?: { id: string } }>)
      if (r.ok && r.photo) actor.photos.push(r.photo.id);
  }
  return res;
}

let serial = 0;
/** A content never sent before; `seed` is drawn when the burst is planned, so the run is the seed's. */
async function freshContent(actor: Actor, seed = ++serial): Promise<Buffer> {
  const bytes = actor.big ? await noisyJpeg(seed * 7919) : await jpeg(seed * 131 + 5);
  actor.contents.push(bytes);
  return bytes;
}

const rowsOf = <T>(res: unknown) => (res as { rows: T[] }).rows;
const query = async <T>(q: ReturnType<typeof sql>) => rowsOf<T>(await t.database.db.execute(q));

let eventSerial = 0;
function deliver(type: string, object: unknown, id = `evt_conc_${++eventSerial}`) {
  return send(
    webhookDelivery({ type, object, id, created: Math.floor(Date.now() / 1000) + eventSerial, secret: WEBHOOK_SECRET }),
  );
}

beforeAll(async () => {
  stripe = await startStripeDouble();
  t = await createTestApp({
    ...stripeConfig(stripe.api),
    rateLimits: roomyLimits,
    storageQuotaBytes: { free: FREE_QUOTA },
  });
  const make = async (name: string, big: boolean): Promise<Actor> => {
    const s = await signUp(t.app);
    return {
      name,
      cookie: s.cookie,
      id: s.user.id,
      email: s.body.email,
      photos: [],
      contents: [],
      everPaid: false,
      big,
    };
  };
  A = await make('A', false);
  B = await make('B', true);
  C = await make('C', false);
  actors = [A, B, C];
  // A and C start a few photos under the Free plan's limit, so the bursts' uploads meet it: one
  // upload each, then copies of its row (the same files), which the triggers count as any insert.
  for (const actor of [A, C]) {
    const res = await uploadAs(actor, [await freshContent(actor)]);
    if (res.statusCode !== 201) throw new Error(`seed upload ${res.statusCode}: ${res.body}`);
    const copies = await query<{ id: string }>(sql`insert into photos (user_id, name, mime, size, width, height,
        original_key, preview_key, thumbnail_key, thumbhash, uploaded_at)
      select user_id, name || ' ' || n, mime, size, width, height, original_key, preview_key, thumbnail_key, thumbhash,
        uploaded_at - make_interval(secs => n)
      from photos, generate_series(1, ${FREE_PHOTO_LIMIT - 4}) n where id = ${actor.photos[0]!} returning id`);
    actor.photos.push(...copies.map((c) => c.id));
  }
  // A and C also start 20 points short of Point Master (500), so the bursts' awards race to
  // unlock it: entries as earlier uploads paid them, a month ago (outside every day's cap).
  for (const actor of [A, C]) {
    const at = new Date(t.clock.now().getTime() - 30 * 86_400_000);
    await t.database.db
      .execute(sql`insert into points_ledger (user_id, source, source_event_id, points, message, created_at)
      select ${actor.id}, 'upload', 'upload:seed-' || n, 5, 'seed', ${at.toISOString()}::timestamptz
      from generate_series(1, 80) n on conflict do nothing`);
    await t.database.db
      .execute(sql`insert into points_ledger (user_id, source, source_event_id, points, message, created_at)
      values (${actor.id}, 'achievement', 'achievement:photo_collector', 50, 'Photo Collector', ${at.toISOString()}::timestamptz)`);
    await t.database.db.execute(
      sql`insert into achievements (user_id, achievement_id) values (${actor.id}, 'photo_collector')`,
    );
  }
  const res = await uploadAs(B, [await freshContent(B), await freshContent(B)]);
  if (res.statusCode !== 201) throw new Error(`seed upload ${res.statusCode}: ${res.body}`);
  // D never acts: a bystander whose every row must stay as it was.
  D = await seedUser(t.app, 4242);
}, 120_000);
afterAll(async () => {
  await t?.close();
  await stripe?.close();
});

interface Outcome {
  label: string;
  res: LightMyRequestResponse;
  /** The request named another user's row: only a 404 is right. */
  foreign?: boolean;
  /** Sent after its session's sign-out was answered: only a 401 is right. */
  signedOut?: boolean;
}

type Op = () => Promise<Outcome[]>;

/** The ops of one burst, chosen by the seeded PRNG; some are set up before the burst (ad breaks). */
async function planBurst(r: ReturnType<typeof rng>, burst: number): Promise<{ ops: Op[]; resets: Set<Actor> }> {
  const ops: Op[] = [];
  /** Sent once even when others are doubled. */
  const once = new Set<Op>();
  /** Whose password this burst resets (they sign in again after it). */
  const resets = new Set<Actor>();
  const foreignPhoto = (actor: Actor) => {
    const others = [...actors.filter((x) => x !== actor).flatMap((x) => x.photos.slice(-3)), D.photoId];
    return r.pick(others);
  };
  const ownPhoto = (actor: Actor) => (actor.photos.length ? r.pick(actor.photos) : D.photoId);
  const one =
    (label: string, req: InjectOptions, foreign = false): Op =>
    async () => [{ label, res: await send(req), foreign }];
  // Ad breaks of this burst are started first (sequentially: a start supersedes the user's older
  // breaks), then the clock passes their end, and the burst records each twice at once.
  const breaks: Array<{ actor: Actor; id: string; app: string }> = [];
  for (const actor of actors) {
    if (r.next() < 0.45) {
      const app = r.pick(SIMULATED_ADS).app;
      breaks.push({ actor, id: (await startAdBreak(t.app, actor.cookie, app)).id, app });
    }
  }
  if (breaks.length) t.clock.advance(31_000);
  for (const b of breaks) {
    const record = (score: number): Op =>
      one(`${b.actor.name} record ad ${score}`, {
        method: 'POST',
        url: '/api/activities',
        headers: { cookie: b.actor.cookie, 'idempotency-key': b.id },
        payload: {
          app: b.app,
          adDuration: SIMULATED_ADS.find((x) => x.app === b.app)!.durationSeconds,
          gameData: { gameType: 'memory', score, completed: true },
        },
      });
    ops.push(record(r.int(0, 2) * 10), record(r.int(0, 2) * 10));
    // A newer break started beside the record supersedes it, or finds it recorded.
    if (r.next() < 0.5)
      ops.push(
        one(`${b.actor.name} start ad`, {
          method: 'POST',
          url: '/api/ad-breaks',
          headers: { cookie: b.actor.cookie },
          payload: { app: r.pick(SIMULATED_ADS).app },
        }),
      );
  }

  const count = r.int(6, 11);
  for (let i = 0; i < count; i++) {
    const actor = r.pick(actors);
    const kind = r.int(0, 14);
    const cookie = { cookie: actor.cookie };
    switch (kind) {
      case 0:
      case 1: {
        // New contents, or one sent before (its reward is paid once), in two requests at once
        // (the gallery sends a selection 20 files a request), so the limits are met by racing inserts.
        const sizes = [r.int(1, 2), r.int(1, 2)];
        const picks = sizes.map((n) =>
          Array.from({ length: n }, () =>
            r.next() < 0.25 && actor.contents.length ? r.pick(actor.contents) : ++serial,
          ),
        );
        ops.push(async () => {
          const batches = await Promise.all(
            picks.map((files) => Promise.all(files.map((f) => (typeof f === 'number' ? freshContent(actor, f) : f)))),
          );
          const answers = await Promise.all(batches.map((files) => uploadAs(actor, files)));
          return answers.map((res, n) => ({ label: `${actor.name} upload ${sizes[n]}`, res }));
        });
        break;
      }
      case 2: {
        const foreign = r.next() < 0.2;
        const ids = [ownPhoto(actor), ...(foreign ? [foreignPhoto(actor)] : r.next() < 0.5 ? [ownPhoto(actor)] : [])];
        ops.push(async () => {
          const res = await send({ method: 'POST', url: '/api/photos/delete', headers: cookie, payload: { ids } });
          if (res.statusCode === 200) actor.photos = actor.photos.filter((p) => !ids.includes(p));
          return [{ label: `${actor.name} delete ${ids.length}`, res, foreign }];
        });
        break;
      }
      case 3: {
        const id = ownPhoto(actor);
        ops.push(async () => {
          const res = await send({ method: 'DELETE', url: `/api/photos/${id}`, headers: cookie });
          if (res.statusCode < 300) actor.photos = actor.photos.filter((p) => p !== id);
          return [{ label: `${actor.name} delete one`, res, foreign: id === D.photoId }];
        });
        break;
      }
      case 4: {
        const foreign = r.next() < 0.2;
        const id = foreign ? foreignPhoto(actor) : ownPhoto(actor);
        ops.push(
          one(
            `${actor.name} favourite`,
            {
              method: 'PUT',
              url: `/api/photos/${id}/favorite`,
              headers: cookie,
              payload: { favorite: r.next() < 0.6 },
            },
            foreign || id === D.photoId,
          ),
        );
        break;
      }
      case 5: {
        const foreign = r.next() < 0.2;
        const photoIds = [ownPhoto(actor), ownPhoto(actor), ...(foreign ? [foreignPhoto(actor)] : [])];
        ops.push(
          one(
            `${actor.name} album`,
            {
              method: 'POST',
              url: '/api/albums',
              headers: cookie,
              payload: { name: `Burst ${burst} ${i}`, photoIds: [...new Set(photoIds)] },
            },
            foreign || photoIds.includes(D.photoId),
          ),
        );
        break;
      }
      case 6: {
        const foreign = r.next() < 0.15;
        const photoId = foreign ? foreignPhoto(actor) : ownPhoto(actor);
        ops.push(
          one(
            `${actor.name} apply`,
            {
              method: 'POST',
              url: '/api/photo-filters/apply',
              headers: cookie,
              payload: { photoId, filterName: r.pick(FILTER_IDS), intensity: r.int(5, 15) * 10 },
            },
            foreign || photoId === D.photoId,
          ),
        );
        break;
      }
      case 7: {
        const photoId = ownPhoto(actor);
        ops.push(
          one(
            `${actor.name} revert`,
            { method: 'POST', url: '/api/photo-filters/revert', headers: cookie, payload: { photoId } },
            photoId === D.photoId,
          ),
        );
        break;
      }
      case 8: {
        // The day's login reward, asked by two tabs at once.
        const login = one(`${actor.name} login reward`, {
          method: 'POST',
          url: '/api/rewards/record',
          headers: cookie,
          payload: { type: 'login', utcOffsetMinutes: 0 },
        });
        ops.push(login, login);
        break;
      }
      case 9: {
        const activate = one(`${actor.name} activate`, {
          method: 'POST',
          url: '/api/app-status/activate',
          headers: cookie,
          payload: { utcOffsetMinutes: 0 },
        });
        ops.push(activate, activate);
        break;
      }
      case 10: {
        // The plan changes only C makes (A and B stay on the Free plan, whose limits they meet).
        const c = { cookie: C.cookie };
        const choice = r.int(0, 2);
        C.everPaid = true;
        if (choice === 0) {
          const trial = one('C trial', {
            method: 'POST',
            url: '/api/subscription',
            headers: c,
            payload: { plan: 'monthly' },
          });
          ops.push(trial, trial);
        } else if (choice === 1) {
          ops.push(one('C cancel', { method: 'POST', url: '/api/subscription/cancel', headers: c }));
        } else {
          // Checkout, paid, and Stripe's event delivered twice at once (a retry) while C uploads.
          const tier = r.pick(['basic', 'premium'] as const);
          ops.push(async () => {
            const res = await send({
              method: 'POST',
              url: '/api/create-subscription',
              headers: c,
              payload: { tier, billingCycle: 'monthly' },
            });
            const out: Outcome[] = [{ label: 'C checkout', res }];
            if (res.statusCode !== 200) return out;
            const { invoice } = stripe.pay(res.json().subscriptionId as string);
            const id = `evt_conc_paid_${++eventSerial}`;
            const [w1, w2] = await Promise.all([
              deliver('invoice.paid', invoice, id),
              deliver('invoice.paid', invoice, id),
            ]);
            out.push({ label: 'C webhook', res: w1 }, { label: 'C webhook again', res: w2 });
            return out;
          });
        }
        break;
      }
      case 11: {
        // A second session of the actor signs out while requests on it are in flight.
        const favourite = ownPhoto(actor);
        const content = ++serial;
        ops.push(async () => {
          const login = await send({
            method: 'POST',
            url: '/api/auth/login',
            payload: { email: actor.email, password: 'secret123' },
            remoteAddress: `10.88.0.${burst}`,
          });
          // A reset of the same account in this burst refuses a sign-in racing it (by design).
          if (login.statusCode !== 200) return [{ label: `${actor.name} second sign-in`, res: login }];
          const second = sessionCookieFrom(login);
          const results = await Promise.all([
            send({ method: 'POST', url: '/api/auth/logout', headers: { cookie: second } }),
            send({
              method: 'PUT',
              url: `/api/photos/${favourite}/favorite`,
              headers: { cookie: second },
              payload: { favorite: true },
            }),
            uploadAs(actor, [await freshContent(actor, content)], second),
            send({
              method: 'POST',
              url: '/api/rewards/record',
              headers: { cookie: second },
              payload: { type: 'login', utcOffsetMinutes: 0 },
            }),
          ]);
          // Signed out everywhere once the sign-out is answered: the auth route (read from the
          // database) and any other (which may reuse a session for 5 s).
          const afterwards = await Promise.all(
            ['/api/auth/user', '/api/photos/summary', '/api/subscription'].map((url) =>
              send({ url, headers: { cookie: second } }),
            ),
          );
          return [
            ...results.map((res, n) => ({ label: `${actor.name} signed-out session #${n}`, res })),
            ...afterwards.map((res) => ({ label: `${actor.name} session after sign-out`, res, signedOut: true })),
          ];
        });
        break;
      }
      case 14: {
        if (resets.has(B)) break;
        resets.add(B);
        // B's password reset (it signs out every session, the one the burst's other requests use
        // too) while B's requests are in flight; B signs in again after the burst.
        const reset: Op = async () => {
          const forgot = await send({ method: 'POST', url: '/api/auth/forgot-password', payload: { email: B.email } });
          const token = forgot.json().resetToken as string;
          const oldCookie = B.cookie;
          const [reset, ...during] = await Promise.all([
            send({ method: 'POST', url: '/api/auth/reset-password', payload: { token, password: 'secret123' } }),
            send({ url: '/api/photos/summary', headers: { cookie: oldCookie } }),
            send({
              method: 'POST',
              url: '/api/rewards/record',
              headers: { cookie: oldCookie },
              payload: { type: 'login', utcOffsetMinutes: 0 },
            }),
          ]);
          const afterwards = await Promise.all(
            ['/api/auth/user', '/api/photos/summary', '/api/albums'].map((url) =>
              send({ url, headers: { cookie: oldCookie } }),
            ),
          );
          return [
            { label: 'B forgot password', res: forgot },
            { label: 'B reset password', res: reset! },
            ...during.map((res) => ({ label: 'B request during its reset', res })),
            ...afterwards.map((res) => ({ label: 'B old session after the reset', res, signedOut: true })),
          ];
        };
        ops.push(reset);
        once.add(reset);
        break;
      }
      case 12:
        ops.push(one(`${actor.name} analyze all`, { method: 'POST', url: '/api/photos/analyze-all', headers: cookie }));
        break;
      default:
        // Another user's ad break recorded as one's own: unknown to this user.
        ops.push(
          one(
            `${actor.name} records D's ad break`,
            {
              method: 'POST',
              url: '/api/activities',
              headers: { ...cookie, 'idempotency-key': D.adBreakId },
              payload: { app: 'YouTube', adDuration: 30, gameData: { gameType: 'memory', score: 10, completed: true } },
            },
            true,
          ),
        );
    }
  }
  // Some requests twice at once, as a double tap or two tabs send them (a reset once: a second one
  // would end the session the first one's sign-in made).
  for (const op of [...ops]) if (r.next() < 0.2 && !once.has(op)) ops.push(op);
  return { ops: shuffle(r, ops), resets };
}

function shuffle<T>(r: ReturnType<typeof rng>, xs: T[]): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = r.int(0, i);
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
  return xs;
}

/** Every answer of a burst: no 5xx, no deadlock in words, foreign rows answered 404 (or 401, signed out). */
function judgeAnswers(outcomes: Outcome[], failures: string[]) {
  for (const { label, res, foreign, signedOut } of outcomes) {
    if (signedOut && res.statusCode !== 401) failures.push(`${label}: answered ${res.statusCode} after the sign-out`);
    const body = res.body.slice(0, 240);
    if (res.statusCode >= 500) failures.push(`${label}: ${res.statusCode} ${body}`);
    if (/deadlock|could not serialize|violates|duplicate key/i.test(res.body))
      failures.push(`${label}: database error surfaced: ${body}`);
    // An apply meets the one-apply-per-user guard before it looks the photo up: a 409 says nothing of it.
    const guarded = res.statusCode === 409 && label.endsWith(' apply');
    if (foreign && res.statusCode !== 404 && res.statusCode !== 401 && !guarded)
      failures.push(`${label}: another user's row answered ${res.statusCode} ${body}`);
  }
}

/** The server's own state, checked against what its counters, limits and rules promise. */
async function checkInvariants(failures: string[], dStored: Record<string, string>) {
  const push = (what: string, rows: unknown[]) => {
    if (rows.length) failures.push(`${what}: ${JSON.stringify(rows).slice(0, 600)}`);
  };
  push(
    'photo_library counters differ from the photos',
    await query(sql`select l.user_id, l.photo_count, l.counted, l.original_bytes, c.n, c.counted as real_counted, c.bytes
      from photo_library l left join (select user_id, count(*)::int n, (count(*) filter (where demo_key is null))::int counted,
        coalesce(sum(size) filter (where demo_key is null), 0)::bigint bytes from photos group by user_id) c on c.user_id = l.user_id
      where l.photo_count <> coalesce(c.n, 0) or l.counted <> coalesce(c.counted, 0) or l.original_bytes <> coalesce(c.bytes, 0)`),
  );
  push(
    'users with photos and no photo_library row',
    await query(
      sql`select distinct p.user_id from photos p left join photo_library l on l.user_id = p.user_id where l.user_id is null`,
    ),
  );
  push(
    'points_totals differ from the ledger and activities',
    await query(sql`select u.id, t.points, t.upload_entries, t.activity_count, t.time_saved, l.points lp, l.uploads, a.n, a.saved
      from users u left join points_totals t on t.user_id = u.id
      left join (select user_id, sum(points)::bigint points, count(*) filter (where source = 'upload')::bigint uploads
        from points_ledger group by user_id) l on l.user_id = u.id
      left join (select user_id, count(*)::bigint n, sum(time_saved)::bigint saved from activities group by user_id) a on a.user_id = u.id
      where coalesce(t.points, 0) <> coalesce(l.points, 0) or coalesce(t.upload_entries, 0) <> coalesce(l.uploads, 0)
        or coalesce(t.activity_count, 0) <> coalesce(a.n, 0) or coalesce(t.time_saved, 0) <> coalesce(a.saved, 0)`),
  );
  // The ledger pays only what the rules allow, each event once.
  push(
    'ledger entries of an amount the rules never pay',
    await query(sql`select user_id, source, source_event_id, points from points_ledger where
      (source = 'upload' and points not in (0, 5)) or (source = 'login' and points <> 10)
      or (source = 'activation' and points <> 15) or points < 0
      or (source not in ('upload', 'login', 'activation', 'streak', 'activity', 'skip', 'achievement'))`),
  );
  push(
    'ad entries without their activity, or of other points',
    await query(sql`select l.user_id, l.source_event_id, l.points, a.points_earned, a.ad_duration from points_ledger l
      left join activities a on a.user_id = l.user_id and (l.source_event_id = 'activity:' || a.event_id or l.source_event_id = 'skip:' || a.event_id)
      where l.source in ('activity', 'skip') and (a.id is null or (l.source = 'activity' and l.points <> a.points_earned))`),
  );
  const skips = await query<{ ad_duration: number; points: number | null; event_id: string }>(
    sql`select a.ad_duration, l.points, a.event_id from activities a
      left join points_ledger l on l.user_id = a.user_id and l.source_event_id = 'skip:' || a.event_id`,
  );
  push(
    'activities without their skip reward, or paid another',
    skips.filter((s) => s.points !== skipReward(s.ad_duration)),
  );
  push(
    "activities not of one of the user's recorded ad breaks",
    await query(sql`select a.user_id, a.event_id from activities a left join ad_breaks b on b.id::text = a.event_id and b.user_id = a.user_id
      where b.id is null or b.recorded_at is null or b.superseded_at is not null`),
  );
  push(
    'ad breaks marked recorded with no activity (a break lost)',
    await query(sql`select b.user_id, b.id from ad_breaks b left join activities a on a.event_id = b.id::text and a.user_id = b.user_id
      where b.recorded_at is not null and a.id is null`),
  );
  push(
    'streak entries without a login that day',
    await query(sql`select s.user_id, s.source_event_id from points_ledger s where s.source = 'streak' and not exists (
      select 1 from points_ledger l where l.user_id = s.user_id and l.source_event_id = 'login:' || substr(s.source_event_id, 8))`),
  );
  const achievementRows = await query<{
    user_id: string;
    id: string;
    points: number | null;
    uploads: string;
    ads: string;
    total: string;
  }>(
    sql`select coalesce(a.user_id, l.user_id) user_id, coalesce(a.achievement_id, substr(l.source_event_id, 13)) id, l.points,
      coalesce(t.upload_entries, 0) uploads, coalesce(t.activity_count, 0) ads, coalesce(t.points, 0) total
      from achievements a full join (select * from points_ledger where source = 'achievement') l
        on l.user_id = a.user_id and l.source_event_id = 'achievement:' || a.achievement_id
      left join points_totals t on t.user_id = coalesce(a.user_id, l.user_id)`,
  );
  for (const row of achievementRows) {
    const rule = ACHIEVEMENTS.find((x) => x.id === row.id);
    const progress = {
      photosUploaded: Number(row.uploads),
      adsSkipped: Number(row.ads),
      totalPoints: Number(row.total),
    };
    if (!rule || row.points !== rule.points)
      failures.push(`achievement ${row.id} of ${row.user_id} paid ${row.points} (or unrecorded)`);
    else if (rule.metric !== 'currentStreak' && progress[rule.metric] < rule.threshold)
      failures.push(`achievement ${row.id} of ${row.user_id} unlocked at ${progress[rule.metric]} < ${rule.threshold}`);
  }
  // What is due is paid: the counters past a threshold have their achievement.
  push(
    'achievements due and not unlocked',
    await query(sql`select t.user_id, t.upload_entries, t.activity_count from points_totals t where
      (t.upload_entries >= 1 and not exists (select 1 from achievements a where a.user_id = t.user_id and a.achievement_id = 'first_steps'))
      or (t.upload_entries >= 10 and not exists (select 1 from achievements a where a.user_id = t.user_id and a.achievement_id = 'photo_collector'))
      or (t.activity_count >= 5 and not exists (select 1 from achievements a where a.user_id = t.user_id and a.achievement_id = 'ad_skipper'))`),
  );
  // No orphan or cross-user row.
  push(
    "album memberships joining one user's album and another's photo",
    await query(
      sql`select ap.* from album_photos ap join albums a on a.id = ap.album_id join photos p on p.id = ap.photo_id where a.user_id <> p.user_id`,
    ),
  );
  push(
    "photos in another user's album",
    await query(sql`select p.id from photos p join albums a on a.id = p.album_id where a.user_id <> p.user_id`),
  );
  push(
    'photos showing a version that is not theirs, or versions not shown',
    await query(sql`select p.id, p.current_version_id, v.id vid, v.photo_id from photos p full join photo_versions v on v.id = p.current_version_id
      where (p.current_version_id is not null and (v.id is null or v.photo_id <> p.id)) or (p.id is null)`),
  );
  push(
    "jobs for another user's photo",
    await query(sql`select j.id from jobs j join photos p on p.id = j.photo_id where p.user_id <> j.user_id`),
  );
  push(
    'more than one ad break running for a user (started and neither recorded nor replaced)',
    await query(sql`select user_id, count(*) n from ad_breaks where recorded_at is null and superseded_at is null
      group by user_id having count(*) > 1`),
  );
  // Stripe's side: never two subscriptions of one customer that can charge (live, or a payable checkout).
  const live = stripe.subscriptions.filter((x) => !['canceled', 'incomplete_expired'].includes(String(x.status)));
  const byCustomer = new Map<string, number>();
  for (const x of live) byCustomer.set(String(x.customer), (byCustomer.get(String(x.customer)) ?? 0) + 1);
  for (const [customer, n] of byCustomer)
    if (n > 1) failures.push(`Stripe customer ${customer} has ${n} subscriptions that can charge`);
  push(
    'more than one subscription row',
    await query(sql`select user_id, count(*) n from subscriptions group by user_id having count(*) > 1`),
  );
  // Plan limits, from the server's own counts.
  const usage = await query<{ user_id: string; counted: number; used: string }>(
    sql`select l.user_id, l.counted, (l.original_bytes + coalesce((select sum(v.size) from photo_versions v join photos p on p.id = v.photo_id
      where p.user_id = l.user_id), 0))::bigint used from photo_library l`,
  );
  for (const actor of actors) {
    const u = usage.find((x) => x.user_id === actor.id);
    if (!u) continue;
    if (!actor.everPaid && u.counted > FREE_PHOTO_LIMIT)
      failures.push(`${actor.name} holds ${u.counted} photos on the Free plan (limit ${FREE_PHOTO_LIMIT})`);
    if (!actor.everPaid && Number(u.used) > FREE_QUOTA)
      failures.push(`${actor.name} stores ${u.used} bytes on the Free plan (quota ${FREE_QUOTA})`);
  }
  // What each user reads is the stored truth (the gallery's first page is kept in memory).
  for (const actor of actors) {
    const [page, favs, rewards] = await Promise.all(
      ['/api/photos?limit=200', '/api/photos/favorites?limit=200', '/api/rewards'].map((url) =>
        send({ url, headers: { cookie: actor.cookie } }),
      ),
    );
    const truth = await query<{ id: string; favorite: boolean }>(
      sql`select id, favorite from photos where user_id = ${actor.id} order by uploaded_at desc, id desc limit 200`,
    );
    const [points] = await query<{ n: string }>(
      sql`select coalesce(sum(points), 0)::bigint n from points_ledger where user_id = ${actor.id}`,
    );
    const pageJson = page!.json() as { items: Array<{ id: string }>; total: number };
    const [{ n: total }] = await query<{ n: number }>(
      sql`select count(*)::int n from photos where user_id = ${actor.id}`,
    );
    if (pageJson.total !== total)
      failures.push(`${actor.name}'s gallery says ${pageJson.total} photos, stored ${total}`);
    if (JSON.stringify(pageJson.items.map((p) => p.id)) !== JSON.stringify(truth.map((p) => p.id)))
      failures.push(`${actor.name}'s gallery page is not the stored photos`);
    const favIds = (favs!.json() as { items: Array<{ id: string }> }).items.map((p) => p.id).sort();
    const favTruth = truth
      .filter((p) => p.favorite)
      .map((p) => p.id)
      .sort();
    if (JSON.stringify(favIds) !== JSON.stringify(favTruth))
      failures.push(`${actor.name}'s favourites read ${favIds.length}, stored ${favTruth.length}`);
    if ((rewards!.json() as { totalPoints: number }).totalPoints !== Number(points!.n))
      failures.push(`${actor.name}'s points read ${rewards!.json().totalPoints}, ledger ${points!.n}`);
  }
  const dNow = await digestOf(D.user.id);
  const moved = Object.keys(dNow).filter((k) => dNow[k] !== dStored[k]);
  if (moved.length) failures.push(`the bystander's ${moved.join(', ')} changed`);
  const blobs = await blobConsistency(t.database.db, t.config.blobDir);
  if (blobs.missing.length) failures.push(`rows pointing at missing files: ${blobs.missing.length}`);
}

/**
 * A digest of every row of a user, per table (each table with a user_id, memberships and versions).
 * Fingerprints are made after an upload's answer once the server is quiet, not by any request:
 * left out, as the route fuzzer leaves them out.
 */
async function digestOf(userId: string): Promise<Record<string, string>> {
  const tables = (
    await query<{ table_name: string }>(sql`select table_name from information_schema.columns
      where table_schema = 'public' and column_name = 'user_id' and table_name <> 'photo_fingerprints'
      order by table_name`)
  ).map((x) => x.table_name);
  const digest = (from: ReturnType<typeof sql>) =>
    sql`(select md5(coalesce(string_agg(x::text, '|' order by x::text), '')) from ${from})`;
  const parts: Array<[string, ReturnType<typeof sql>]> = [
    ...tables.map((name): [string, ReturnType<typeof sql>] => [
      name,
      digest(sql`${sql.identifier(name)} x where x.user_id = ${userId}`),
    ]),
    ['album_photos', digest(sql`album_photos x join albums a on a.id = x.album_id where a.user_id = ${userId}`)],
    ['photo_versions', digest(sql`photo_versions x join photos p on p.id = x.photo_id where p.user_id = ${userId}`)],
    ['users', digest(sql`users x where x.id = ${userId}`)],
  ];
  const select = sql.join(
    parts.map(([name, d]) => sql`${d} as ${sql.identifier(name)}`),
    sql`, `,
  );
  return (await query<Record<string, string>>(sql`select ${select}`))[0]!;
}

describe(`concurrency fuzzer (seeded bursts from three users, ${testDbKind})`, () => {
  it(`${BURSTS} bursts: no 5xx or hang, counters equal the truth, rules paid once, limits held, nothing crosses users`, async () => {
    const r = rng(SEED);
    const failures: string[] = [];
    const statuses: Record<number, number> = {};
    const refusals: Record<string, number> = {};
    const dStored = await digestOf(D.user.id);
    const startedAt = Date.now();
    for (let burst = 0; burst < BURSTS; burst++) {
      // Hours pass between bursts, so login and activation rewards meet new days.
      t.clock.advance(r.int(0, 16) * 3_600_000);
      const before = failures.length;
      const { ops, resets } = await planBurst(r, burst);
      const outcomes = (await Promise.all(ops.map((op) => op()))).flat();
      for (const actor of resets) {
        const login = await send({
          method: 'POST',
          url: '/api/auth/login',
          payload: { email: actor.email, password: 'secret123' },
          remoteAddress: `10.89.0.${burst}`,
        });
        actor.cookie = sessionCookieFrom(login);
      }
      for (const o of outcomes) {
        statuses[o.res.statusCode] = (statuses[o.res.statusCode] ?? 0) + 1;
        if (o.res.statusCode >= 400) {
          const key = `${o.label.replace(/\d+/g, 'N')} ${o.res.statusCode} ${o.res.body.slice(0, 90)}`;
          refusals[key] = (refusals[key] ?? 0) + 1;
        }
      }
      judgeAnswers(outcomes, failures);
      await checkInvariants(failures, dStored);
      if (failures.length > before)
        failures.push(
          `^ after burst ${burst}: ${outcomes.map((o) => `${o.label}=${o.res.statusCode}${o.res.statusCode >= 400 ? ` (${o.res.body.slice(0, 80)})` : ''}`).join(', ')}`,
        );
    }
    if (process.env.FUZZ_DEBUG) {
      console.log(statuses, requests, Date.now() - startedAt, 'ms', refusals);
      console.log(
        await query(sql`select u.email, l.counted, t.points, t.activity_count,
          (select string_agg(achievement_id, ',') from achievements a where a.user_id = u.id) achievements,
          (select source || ' ' || tier || ' ' || status from subscriptions s where s.user_id = u.id) plan
          from users u left join photo_library l on l.user_id = u.id left join points_totals t on t.user_id = u.id
          where u.id in (${A.id}, ${B.id}, ${C.id})`),
      );
      if (testDbKind === 'postgres')
        console.log(await query(sql`select deadlocks from pg_stat_database where datname = current_database()`));
    }
    expect(failures).toEqual([]);
    expect(requests).toBeLessThanOrEqual(MAX_REQUESTS);
    // The mix is real: writes landed, limits refused, foreign rows were refused.
    expect(statuses[201] ?? 0).toBeGreaterThan(5);
    expect(statuses[404] ?? 0).toBeGreaterThan(3);
  }, 120_000);
});
