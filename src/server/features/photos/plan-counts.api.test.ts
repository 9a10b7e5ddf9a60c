import { sql } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, signUp, testDbKind, type TestApp } from '../../test/harness';
import { postPhotos } from '../../test/multipart';
import { planUsage } from './photos.repository';

/**
 * The plan's counts (photos the Free plan's limit counts, bytes of their originals) are kept on the
 * user's library row by triggers (migration 0009), so an upload's checks read one row instead of
 * counting the library. They must always equal what counting the photos gives.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

const jpeg = (seed: number) =>
  sharp({ create: { width: 64 + seed, height: 48, channels: 3, background: { r: seed * 40, g: 90, b: 30 } } })
    .jpeg()
    .toBuffer();

type Row = Record<string, unknown>;
const rowsOf = async (q: ReturnType<typeof sql>) =>
  ((await t.database.db.execute(q)) as unknown as { rows: Row[] }).rows;

/** The kept counts beside the counted ones, for one user. */
async function counts(userId: string) {
  const [kept] = await rowsOf(sql`select counted, original_bytes from photo_library where user_id = ${userId}`);
  const [counted] = await rowsOf(
    sql`select count(*) as n, coalesce(sum(size), 0) as bytes from photos where user_id = ${userId} and demo_key is null`,
  );
  return {
    kept: { photos: Number(kept?.counted ?? 0), bytes: Number(kept?.original_bytes ?? 0) },
    counted: { photos: Number(counted!.n), bytes: Number(counted!.bytes) },
  };
}

describe(`the plan's counts kept on the library row (${testDbKind})`, () => {
  it('follow uploads, demo photos, deletes and updates, and are what the plan checks read', async () => {
    const { cookie, user } = await signUp(t.app);
    // A new account's demo library counts toward neither.
    let c = await counts(user.id);
    expect(c.kept).toEqual({ photos: 0, bytes: 0 });

    const files = await Promise.all([1, 2, 3].map(async (i) => ({ name: `p${i}.jpg`, bytes: await jpeg(i) })));
    const up = await postPhotos(t.app, cookie, files);
    expect(up.statusCode).toBe(201);
    const ids = (up.json() as { results: Array<{ photo: { id: string } }> }).results.map((r) => r.photo.id);
    c = await counts(user.id);
    expect(c.kept).toEqual({ photos: 3, bytes: files.reduce((s, f) => s + f.bytes.length, 0) });
    expect(c.kept).toEqual(c.counted);

    // Deleting an uploaded photo and a demo photo: only the first moves the counts.
    const [demo] = await rowsOf(sql`select id from photos where user_id = ${user.id} and demo_key is not null limit 1`);
    const del = await t.app.inject({
      method: 'POST',
      url: '/api/photos/delete',
      headers: { cookie },
      payload: { ids: [ids[0], demo!.id] },
    });
    expect(del.statusCode).toBe(200);
    c = await counts(user.id);
    expect(c.kept.photos).toBe(2);
    expect(c.kept).toEqual(c.counted);

    // Should an update ever change what is counted, the counts follow; an update changing nothing else does not.
    await t.database.db.execute(sql`update photos set size = size + 1000 where id = ${ids[1]}`);
    await t.database.db.execute(sql`update photos set favorite = true where user_id = ${user.id}`);
    c = await counts(user.id);
    expect(c.kept).toEqual(c.counted);

    // What the upload's and the filter's checks read.
    const usage = await planUsage(t.database.db, user.id);
    expect(usage.counted).toBe(2);
    expect(usage.usedBytes).toBe(c.counted.bytes);

    // Another user's writes leave them alone.
    const other = await signUp(t.app);
    expect((await postPhotos(t.app, other.cookie, [{ name: 'x.jpg', bytes: await jpeg(9) }])).statusCode).toBe(201);
    expect((await counts(user.id)).kept).toEqual(c.kept);
    const theirs = await counts(other.user.id);
    expect(theirs.kept.photos).toBe(1);
    expect(theirs.kept).toEqual(theirs.counted);
  });
});
