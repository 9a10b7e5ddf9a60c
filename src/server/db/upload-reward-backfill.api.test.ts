import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { hashToken } from '../lib/tokens';
import { sha256Hex } from '../storage/blob-store';
import { testDbKind } from '../test/harness';
import { migrationsFolder, readJournal } from '../test/migrations-folder';
import { postPhotos } from '../test/multipart';
import { appOn, emptyDatabase } from '../test/empty-database';
import { openDatabase, type Database } from './client';

/**
 * Photos rewarded before upload rewards were keyed by content (`upload:<random id>` per request,
 * before 2026-11-23) had no `upload:<sha256>` entry, so one deleted and uploaded again was
 * rewarded a second time. Migration 0015 writes that key for them. On both databases.
 */

const OPENS_TIMEOUT_MS = 300_000;
const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

const image = (r: number) =>
  sharp({ create: { width: 40, height: 30, channels: 3, background: { r, g: 90, b: 140 } } })
    .png()
    .toBuffer();

const BACKFILL = '0015_upload_reward_old_keys';
const before0015 = readJournal().entries.findIndex((e) => e.tag === BACKFILL);

async function open(where: { databaseUrl?: string; pgliteDir: string }, count?: number): Promise<Database> {
  if (count === undefined) return openDatabase(where);
  const folder = migrationsFolder(count);
  try {
    return await openDatabase({ ...where, migrationsFolder: folder.dir });
  } finally {
    folder.cleanup();
  }
}

/**
 * A user whose beach photo the old release stored and rewarded (its request's key), with a demo
 * photo, on a database as the release before 0015 left it; then `release` starts on it, the user
 * deletes the beach photo and uploads it again. Answers that upload's reward and the user's points.
 */
async function reuploadRewardedPhoto(release: 'before 0015' | 'this release') {
  const where = await emptyDatabase('rewardkeys', cleanups);
  const user = randomUUID();
  const token = randomBytes(32).toString('base64url');
  const cookie = `eyevu_session=${token}`;
  const beach = await image(10);
  const sunset = await image(220);
  const [beachId, demoId] = [randomUUID(), randomUUID()];

  const old = await open(where, before0015);
  try {
    await old.db.execute(sql`
      insert into users (id, email, password_hash, first_name, last_name, created_at)
        values (${user}, 'ada@example.com', 'scrypt$x', 'Ada', 'Lovelace', now() - interval '40 days')`);
    await old.db.execute(sql`
      insert into sessions (id, user_id, expires_at) values (${hashToken(token)}, ${user}, now() + interval '20 days')`);
    await old.db.execute(sql`
      insert into photos (id, user_id, name, mime, size, width, height, original_key, preview_key, thumbnail_key,
          uploaded_at, demo_key) values
        (${beachId}, ${user}, 'beach.png', 'image/png', ${beach.length}, 40, 30, ${sha256Hex(beach)},
          ${sha256Hex(beach)}, ${sha256Hex(beach)}, now() - interval '3 days', null),
        (${demoId}, ${user}, 'Sunset.png', 'image/png', ${sunset.length}, 40, 30, ${sha256Hex(sunset)},
          ${sha256Hex(sunset)}, ${sha256Hex(sunset)}, now() - interval '10 days', 'demo-1')`);
    // The old release's reward for the beach photo's request, written just after it was stored.
    await old.db.execute(sql`
      insert into points_ledger (user_id, source, source_event_id, points, created_at)
        values (${user}, 'upload', ${`upload:${randomUUID()}`}, 5, now() - interval '3 days' + interval '1 second')`);
  } finally {
    await old.close();
  }

  const database = await open(where, release === 'before 0015' ? before0015 : undefined);
  const app = await appOn(database, cleanups);
  // The backfill moves no points.
  const summary = await app.inject({ method: 'GET', url: '/api/rewards', headers: { cookie } });
  expect((summary.json() as { totalPoints: number }).totalPoints).toBe(5);

  const removed = await app.inject({ method: 'DELETE', url: `/api/photos/${beachId}`, headers: { cookie } });
  expect(removed.statusCode).toBe(200);
  const again = await postPhotos(app, cookie, [{ name: 'beach.png', bytes: beach, type: 'image/png' }]);
  expect(again.statusCode, again.body).toBe(201);
  expect(again.json().results[0].ok).toBe(true);
  // The demo library was never rewarded: its photo uploaded as the user's own earns as usual.
  const demo = await postPhotos(app, cookie, [{ name: 'sunset.png', bytes: sunset, type: 'image/png' }]);
  return {
    rewarded: (again.json().reward as { rewardedPhotos: number } | null)?.rewardedPhotos ?? 0,
    demoRewarded: (demo.json().reward as { rewardedPhotos: number } | null)?.rewardedPhotos ?? 0,
  };
}

describe(`upload rewards given under the old key (${testDbKind})`, () => {
  it(
    'were given again to a photo deleted and uploaded again before 0015',
    async () => {
      const { rewarded } = await reuploadRewardedPhoto('before 0015');
      expect(rewarded).toBe(1);
    },
    OPENS_TIMEOUT_MS,
  );

  it(
    "are not given again after it, and a demo photo uploaded as the user's own still earns",
    async () => {
      const { rewarded, demoRewarded } = await reuploadRewardedPhoto('this release');
      expect(rewarded).toBe(0);
      expect(demoRewarded).toBe(1);
    },
    OPENS_TIMEOUT_MS,
  );
});
