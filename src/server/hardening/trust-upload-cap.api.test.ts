import sharp from 'sharp';
import { sql } from 'drizzle-orm';
import { REWARD_POINTS, UPLOAD_REWARD_PHOTOS_PER_DAY } from '@domain/rewards';
import { dayRangeInZone } from '@domain/time-zone';
import type { UploadResponse } from '@contract/photos';
import { createTestApp, signUp, testDbKind, type TestApp } from '../test/harness';
import { postPhotos } from '../test/multipart';

/** A JPEG no other call makes: the upload reward pays only contents never rewarded before. */
let made = 0;
const freshJpeg = async () => {
  made += 1;
  const bytes = await sharp({
    create: { width: 16 + (made % 200), height: 8 + Math.floor(made / 200), channels: 3, background: '#335577' },
  })
    .jpeg()
    .toBuffer();
  return { name: `fresh-${made}.jpg`, bytes };
};
const freshJpegs = (n: number) => Promise.all(Array.from({ length: n }, freshJpeg));

/**
 * A script can make endless new images, upload them and delete them again: only contents never
 * rewarded earn, so without a cap every round mints 5 points a photo. At most
 * UPLOAD_REWARD_PHOTOS_PER_DAY photos a day of the user's stored zone earn; the rest still upload.
 */
describe(`upload reward: a daily cap no script can mint past (${testDbKind})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  /** Uploads `n` new photos and deletes them again (the free limit never stops the script). */
  async function uploadAndDelete(cookie: string, n: number) {
    const res = await postPhotos(t.app, cookie, await freshJpegs(n));
    expect(res.statusCode).toBe(201);
    const body = res.json() as UploadResponse;
    expect(body.uploaded).toBe(n);
    const ids = body.results.flatMap((r) => (r.ok ? [r.photo.id] : []));
    const del = await t.app.inject({
      method: 'POST',
      url: '/api/photos/delete',
      headers: { cookie },
      payload: { ids },
    });
    expect(del.statusCode).toBe(200);
    return body.reward ?? null;
  }

  /** The upload reward's points in the ledger, and what GET /api/rewards says was uploaded. */
  async function uploadPoints(userId: string, cookie: string) {
    const res = (await t.database.db.execute(
      sql`select coalesce(sum(points), 0)::int as points from points_ledger where user_id = ${userId} and source = 'upload'`,
    )) as unknown as { rows: Array<{ points: number }> };
    const rewards = (await t.app.inject({ url: '/api/rewards', headers: { cookie } })).json() as {
      photosUploaded: number;
    };
    return { points: Number(res.rows[0]!.points), photosUploaded: rewards.photosUploaded };
  }

  it('credits exactly the cap, racing uploads included, then nothing until the next day of the stored zone', async () => {
    // Far from UTC, so a UTC day would end at another instant than the user's.
    const zone = 'Pacific/Kiritimati';
    const a = await signUp(t.app, { timeZone: zone });
    const other = await signUp(t.app, { timeZone: zone });
    const cap = UPLOAD_REWARD_PHOTOS_PER_DAY;

    let photos = 0;
    while (photos + 20 <= cap - 2) {
      expect((await uploadAndDelete(a.cookie, 20))?.rewardedPhotos).toBe(20);
      photos += 20;
    }
    const rest = cap - 2 - photos;
    expect((await uploadAndDelete(a.cookie, rest))?.rewardedPhotos).toBe(rest);
    photos += rest;

    // Three uploads race for the day's last two credits: together they get exactly two.
    const raced = await Promise.all([1, 2, 3].map(async () => uploadAndDelete(a.cookie, 4)));
    expect(raced.reduce((n, r) => n + (r?.rewardedPhotos ?? 0), 0)).toBe(2);
    expect(
      raced.reduce((n, r) => n + (r ? r.points - r.newAchievements.reduce((s, x) => s + x.points, 0) : 0), 0),
    ).toBe(2 * REWARD_POINTS.upload);
    photos += 12;

    // Past the cap the upload still succeeds, with no reward (the client shows no points).
    expect(await uploadAndDelete(a.cookie, 5)).toBeNull();
    photos += 5;
    // Capped photos still count as uploaded; the points are the cap's.
    expect(await uploadPoints(a.user.id, a.cookie)).toEqual({
      points: cap * REWARD_POINTS.upload,
      photosUploaded: photos,
    });

    // Another user's day is their own.
    expect((await uploadAndDelete(other.cookie, 1))?.rewardedPhotos).toBe(1);

    // The last minute of the user's day still counts toward it; its end starts a new one.
    const { end } = dayRangeInZone(t.clock.now(), zone);
    t.clock.advance(end.getTime() - t.clock.now().getTime() - 60_000);
    expect(await uploadAndDelete(a.cookie, 1)).toBeNull();
    t.clock.advance(60_000);
    const nextDay = await uploadAndDelete(a.cookie, 3);
    expect(nextDay).toMatchObject({ rewardedPhotos: 3, points: 3 * REWARD_POINTS.upload });
    expect(await uploadPoints(a.user.id, a.cookie)).toEqual({
      points: (cap + 3) * REWARD_POINTS.upload,
      photosUploaded: photos + 4,
    });
  });
});
