import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { FREE_PHOTO_LIMIT } from '@domain/plans';
import { hashToken } from '../lib/tokens';
import { sha256Hex } from '../storage/blob-store';
import { testDbKind } from '../test/harness';
import { migrationsFolder } from '../test/migrations-folder';
import { postPhotos } from '../test/multipart';
import { appOn, emptyDatabase } from '../test/empty-database';
import { openDatabase, type Database } from './client';

/**
 * A new release starting on a database an older release wrote: every migration since then runs
 * over real rows (users, sessions, photos with their files, albums and their members, a queued job,
 * the ledger, a subscription, a reset, the limit tables), and the app then reads them as the user
 * left them. On both databases: the test database is empty, not the migrated template.
 */

/** Each start on an on-disk PGlite runs initdb or recovery and VACUUM ANALYZE: seconds apiece on a busy machine. */
const OPENS_TIMEOUT_MS = 300_000;

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** The database as the release whose newest migration is the `count`th left it. */
async function openAt(where: { databaseUrl?: string; pgliteDir: string }, count: number): Promise<Database> {
  const folder = migrationsFolder(count);
  try {
    return await openDatabase({ ...where, migrationsFolder: folder.dir });
  } finally {
    folder.cleanup();
  }
}

const image = (r: number) =>
  sharp({ create: { width: 40, height: 30, channels: 3, background: { r, g: 90, b: 140 } } })
    .png()
    .toBuffer();

const TABLES = [
  'users',
  'sessions',
  'photos',
  'photo_versions',
  'albums',
  'album_photos',
  'jobs',
  'points_ledger',
  'activities',
  'achievements',
  'subscriptions',
  'password_resets',
  'app_status',
  'stripe_events',
  'ad_breaks',
  'rate_limit_counters',
  'sign_in_failures',
  'sign_in_devices',
];

async function counts(database: Database): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of TABLES) {
    const res = (await database.db.execute(sql.raw(`select count(*)::int as n from "${t}"`))) as {
      rows: Array<{ n: number }>;
    };
    out[t] = res.rows[0]!.n;
  }
  return out;
}

describe(`an upgrade over rows an older release wrote (${testDbKind})`, () => {
  it(
    'keeps every row and its meaning: the gallery, its files, albums, points, the plan and its limit',
    async () => {
      const where = await emptyDatabase('upgrade', cleanups);
      const [ada, bo] = [randomUUID(), randomUUID()];
      const [adaToken, boToken] = [randomBytes(32).toString('base64url'), randomBytes(32).toString('base64url')];
      const beach = await image(10);
      const dinner = await image(200);
      const beachKey = sha256Hex(beach);
      const dinnerKey = sha256Hex(dinner);
      const [p1, p2, p3, p4, v1, trip, nature] = Array.from({ length: 7 }, () => randomUUID());

      // The first release's schema (0000 only), its rows written as that release wrote them.
      const first = await openAt(where, 1);
      try {
        await first.db.execute(sql`
        insert into users (id, email, password_hash, first_name, last_name, stripe_customer_id, created_at) values
          (${ada}, 'ada@example.com', 'scrypt$x', 'Ada', 'Lovelace', 'cus_ada', now() - interval '40 days'),
          (${bo}, 'bo@example.com', 'scrypt$x', 'Bo', 'Free', null, now() - interval '40 days')`);
        await first.db.execute(sql`
        insert into sessions (id, user_id, expires_at) values
          (${hashToken(adaToken)}, ${ada}, now() + interval '20 days'),
          (${hashToken(boToken)}, ${bo}, now() + interval '20 days')`);
        await first.db.execute(sql`
        insert into photos (id, user_id, name, mime, size, width, height, original_key, preview_key, thumbnail_key,
            taken_at, exif, uploaded_at, demo_key, analyzed, category, tags, description, face_count) values
          (${p1}, ${ada}, 'beach-day.png', 'image/png', ${beach.length}, 40, 30, ${beachKey}, ${beachKey}, ${beachKey},
            '2025-07-14T10:00:00Z', '{"Make":"Canon","Model":"EOS R6"}', now() - interval '3 days', null,
            true, 'nature_landscape', '["beach","sea"]', 'A sunny beach', 0),
          (${p2}, ${ada}, 'dinner.png', 'image/png', ${dinner.length}, 40, 30, ${dinnerKey}, ${dinnerKey}, ${dinnerKey},
            null, null, now() - interval '2 days', null, false, null, '[]', null, null),
          (${p3}, ${ada}, 'Welcome.png', 'image/png', ${beach.length}, 40, 30, ${beachKey}, ${beachKey}, ${beachKey},
            null, null, now() - interval '10 days', 'demo-1', false, null, '[]', null, null)`);
        // Bo, on the free plan, one photo below its limit (and a demo photo, which never counts).
        await first.db.execute(sql`
        insert into photos (user_id, name, mime, size, width, height, original_key, preview_key, thumbnail_key,
            uploaded_at, demo_key)
          select ${bo}, 'old-' || i || '.png', 'image/png', ${beach.length}, 40, 30, ${beachKey}, ${beachKey}, ${beachKey},
            now() - interval '5 days' + i * interval '1 minute', case when i = 0 then 'demo-1' end
          from generate_series(0, ${FREE_PHOTO_LIMIT - 1}) i`);
        await first.db.execute(sql`
        insert into photo_versions (id, photo_id, filter_name, intensity, original_key, preview_key, thumbnail_key, size)
          values (${v1}, ${p1}, 'vintage', 80, ${beachKey}, ${beachKey}, ${beachKey}, ${beach.length})`);
        await first.db.execute(sql`update photos set current_version_id = ${v1} where id = ${p1}`);
        await first.db.execute(sql`
        insert into albums (id, user_id, name, description, is_smart_album, smart_key) values
          (${trip}, ${ada}, 'Trip', 'Summer', false, null),
          (${nature}, ${ada}, 'Nature & Landscapes', '', true, 'nature_landscape')`);
        await first.db.execute(sql`
        insert into album_photos (album_id, photo_id) values (${trip}, ${p1}), (${trip}, ${p2}), (${nature}, ${p1})`);
        await first.db.execute(sql`insert into jobs (kind, user_id, photo_id) values ('analyze-photo', ${ada}, ${p2})`);
        await first.db.execute(sql`
        insert into points_ledger (user_id, source, source_event_id, points, message) values
          (${ada}, 'login', 'login:2026-11-01', 10, 'Daily login'),
          (${ada}, 'upload', ${`upload:${p1}`}, 5, null),
          (${ada}, 'upload', ${`upload:${p2}`}, 5, null),
          (${ada}, 'activity', 'activity:e1', 3, null),
          (${bo}, 'login', 'login:2026-11-01', 10, 'Daily login')`);
        await first.db.execute(sql`
        insert into activities (user_id, app, ad_duration, time_saved, points_earned, event_id) values
          (${ada}, 'YouTube', 30, 30, 3, 'e1')`);
        await first.db.execute(sql`insert into achievements (user_id, achievement_id) values (${ada}, 'first_steps')`);
        await first.db.execute(sql`
        insert into subscriptions (user_id, status, tier, billing_cycle, price, end_date, source, stripe_subscription_id)
          values (${ada}, 'active', 'premium', 'monthly', 499, now() + interval '20 days', 'stripe', 'sub_ada')`);
        await first.db.execute(sql`
        insert into password_resets (id, user_id, expires_at) values (${hashToken('reset')}, ${bo}, now() + interval '1 hour')`);
        await first.db.execute(sql`insert into app_status (user_id, is_active) values (${ada}, true)`);
        await first.db.execute(sql`insert into stripe_events (id, type) values ('evt_1', 'invoice.paid')`);
      } finally {
        await first.close();
      }

      // A later release (up to 0013): its new tables and columns hold rows too.
      const middle = await openAt(where, 14);
      let before: Record<string, number>;
      try {
        await middle.db.execute(sql`
        insert into photos (id, user_id, name, mime, size, width, height, original_key, preview_key, thumbnail_key,
            uploaded_at, favorite, file_name) values
          (${p4}, ${ada}, 'harbour.png', 'image/png', ${dinner.length}, 40, 30, ${dinnerKey}, ${dinnerKey}, ${dinnerKey},
            now() - interval '1 day', true, 'IMG_0042.png')`);
        await middle.db.execute(sql`update photos set favorite = true where id = ${p2}`);
        await middle.db.execute(sql`
        insert into points_ledger (user_id, source, source_event_id, points) values (${ada}, 'upload', ${`upload:${p4}`}, 5)`);
        await middle.db.execute(sql`
        insert into ad_breaks (user_id, app, duration_seconds, started_at, recorded_at)
          values (${ada}, 'YouTube', 30, now() - interval '1 hour', now() - interval '59 minutes')`);
        await middle.db.execute(sql`
        insert into rate_limit_counters (key, hits, resets_at) values ('login:ip:127.0.0.9', 3, ${Date.now() + 600_000})`);
        await middle.db.execute(sql`
        insert into sign_in_failures (key, level, updated_at) values (${hashToken('sign-in:bo@example.com')}, 4, now())`);
        await middle.db.execute(sql`
        insert into sign_in_devices (id, user_id, failures, last_used_at) values (${hashToken('device')}, ${ada}, 0, now())`);
        before = await counts(middle);
      } finally {
        await middle.close();
      }

      // This release.
      const database = await openDatabase(where);
      const app = await appOn(database, cleanups);
      // The files were in the store all along (content-addressed: the keys the rows hold).
      expect(await app.ctx.blobs.put(beach)).toBe(beachKey);
      expect(await app.ctx.blobs.put(dinner)).toBe(dinnerKey);

      // 0015 keys Ada's two contents rewarded the old way (beach and dinner; harbour is dinner's).
      expect(await counts(database)).toEqual({ ...before, points_ledger: before.points_ledger! + 2 });
      const get = async (url: string, token: string) => {
        const res = await app.inject({ method: 'GET', url, headers: { cookie: `eyevu_session=${token}` } });
        expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
        return res;
      };

      // The gallery: every photo, newest first, its total from the backfilled library row.
      const page = (await get('/api/photos?limit=20', adaToken)).json();
      expect(page.total).toBe(4);
      expect(
        page.items.map((p: Record<string, unknown>) => ({
          name: p.name,
          favorite: p.favorite,
          isDemo: p.isDemo,
          category: p.category,
          filter: (p.appliedFilter as { filterName: string } | null | undefined)?.filterName ?? null,
        })),
      ).toEqual([
        { name: 'harbour.png', favorite: true, isDemo: false, category: null, filter: null },
        { name: 'dinner.png', favorite: true, isDemo: false, category: null, filter: null },
        { name: 'beach-day.png', favorite: false, isDemo: false, category: 'nature_landscape', filter: 'vintage' },
        { name: 'Welcome.png', favorite: false, isDemo: true, category: null, filter: null },
      ]);
      expect((await get(`/api/photos/${p2}/thumbnail`, adaToken)).rawPayload.equals(dinner)).toBe(true);

      // The find feature's generated columns over the older rows: taken date, EXIF make, tags.
      const found = (await get('/api/photos/timeline?q=canon', adaToken)).json();
      expect(found.items.map((p: { id: string }) => p.id)).toEqual([p1]);
      expect(
        (await get('/api/photos/timeline?q=beach', adaToken)).json().items.map((p: { id: string }) => p.id),
      ).toEqual([p1]);

      const albums = (await get('/api/albums', adaToken)).json() as Array<{ name: string; photoCount: number }>;
      expect(albums.map((a) => [a.name, a.photoCount]).sort()).toEqual([
        ['Favorites', 2],
        ['Nature & Landscapes', 1],
        ['Trip', 2],
      ]);

      // Points and counts from the totals row 0011 filled from the older ledger.
      expect((await get('/api/rewards', adaToken)).json()).toMatchObject({
        totalPoints: 28,
        photosUploaded: 3,
        adsSkipped: 1,
        achievements: ['first_steps'],
      });
      expect((await get('/api/rewards', boToken)).json()).toMatchObject({ totalPoints: 10, photosUploaded: 0 });

      expect((await get('/api/subscription', adaToken)).json()).toMatchObject({
        status: 'active',
        tier: 'premium',
        source: 'stripe',
      });

      // The queued analysis job is still waiting for its photo.
      const queued = (await database.db.execute(sql`select photo_id, status from jobs where user_id = ${ada}`)) as {
        rows: unknown[];
      };
      expect(queued.rows).toEqual([{ photo_id: p2, status: 'queued' }]);

      // The free plan's limit counts Bo's older photos (0009's backfill): one more fits, not two.
      const upload = await postPhotos(app, `eyevu_session=${boToken}`, [
        { name: 'new-1.png', bytes: await image(31), type: 'image/png' },
        { name: 'new-2.png', bytes: await image(32), type: 'image/png' },
      ]);
      expect(upload.json().results.map((r: { ok: boolean; status?: number }) => r.status ?? 'ok')).toEqual(['ok', 403]);
    },
    OPENS_TIMEOUT_MS,
  );
});
