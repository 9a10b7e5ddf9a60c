import { and, eq, sql } from 'drizzle-orm';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { albumPhotos, albums, photos } from '../../db/schema';
import { createTestApp, signUp, testDbKind, type TestApp } from '../../test/harness';
import { createAlbumsRepository } from './albums.repository';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

/** `n` analysed copies of the account's first demo photo in `category`, written straight into the table. */
async function grow(userId: string, n: number, category: string) {
  const [first] = await t.database.db.select().from(photos).where(eq(photos.userId, userId)).limit(1);
  await t.database.db.execute(sql`
    insert into photos (user_id, name, mime, size, width, height, original_key, preview_key, thumbnail_key,
                        analyzed, category, uploaded_at)
    select user_id, 'copy ' || g, mime, size, width, height, original_key, preview_key, thumbnail_key,
           true, ${category}, uploaded_at - make_interval(secs => g)
    from photos, generate_series(1, ${n}::int) g where id = ${first!.id}`);
}

/** The smart albums as the API lists them, by category, and their stored memberships. */
const smartAlbums = async (userId: string, cookie: string) => {
  const rows = await t.database.db
    .select({ id: albums.id, key: albums.smartKey, n: sql<number>`count(${albumPhotos.photoId})::int` })
    .from(albums)
    .leftJoin(albumPhotos, eq(albumPhotos.albumId, albums.id))
    .where(and(eq(albums.userId, userId), eq(albums.isSmartAlbum, true)))
    .groupBy(albums.id);
  const listed = (await t.app.inject({ method: 'GET', url: '/api/albums', headers: { cookie } })).json() as Array<{
    id: string;
    photoCount: number;
    description: string;
  }>;
  return Object.fromEntries(
    rows.map((r) => {
      const shown = listed.find((a) => a.id === r.id);
      expect(shown?.photoCount).toBe(r.n);
      return [r.key, { n: r.n, description: shown?.description }];
    }),
  );
};

describe(`smart albums (${testDbKind})`, () => {
  it('follow each change of one photo: a new category, a face, a delete, a category emptied', async () => {
    const { cookie, user } = await signUp(t.app);
    const repo = createAlbumsRepository(t.database.db);
    const demo = await t.database.db.select().from(photos).where(eq(photos.userId, user.id));
    const [a, b, c] = demo;
    const set = (id: string, v: Partial<typeof photos.$inferInsert>) =>
      t.database.db.update(photos).set(v).where(eq(photos.id, id));
    await set(a!.id, { analyzed: true, category: 'animals' });
    await set(b!.id, { analyzed: true, category: 'animals' });
    await set(c!.id, { analyzed: true, category: 'food_drink' });
    await repo.syncSmartAlbums(user.id);
    expect(await smartAlbums(user.id, cookie)).toEqual({
      animals: { n: 2, description: 'Smart album with 2 photos' },
      food_drink: { n: 1, description: 'Smart album with 1 photo' },
    });
    const albumIds = Object.fromEntries(
      (await t.database.db.select().from(albums).where(eq(albums.userId, user.id))).map((x) => [x.smartKey, x.id]),
    );

    // Re-analysed: b leaves Animals for Food & Drink, and a face puts c in People too.
    await set(b!.id, { category: 'food_drink' });
    await set(c!.id, { faceCount: 1 });
    await repo.syncSmartAlbums(user.id);
    expect(await smartAlbums(user.id, cookie)).toEqual({
      animals: { n: 1, description: 'Smart album with 1 photo' },
      food_drink: { n: 2, description: 'Smart album with 2 photos' },
      people: { n: 1, description: 'Smart album with 1 photo' },
    });
    // Kept albums keep their ids (their memberships change, not the albums).
    const now = await t.database.db.select().from(albums).where(eq(albums.userId, user.id));
    expect(now.find((x) => x.smartKey === 'animals')!.id).toBe(albumIds.animals);
    expect(now.find((x) => x.smartKey === 'food_drink')!.id).toBe(albumIds.food_drink);

    // The last animal deleted: its album goes, and the answer says so.
    expect(
      (await t.app.inject({ method: 'DELETE', url: `/api/photos/${a!.id}`, headers: { cookie } })).statusCode,
    ).toBe(200);
    expect(Object.keys(await smartAlbums(user.id, cookie)).sort()).toEqual(['food_drink', 'people']);
  });

  it("an analysis result's sync looks at that photo alone; a sync of every photo repairs the rest", async () => {
    const { cookie, user } = await signUp(t.app);
    const repo = createAlbumsRepository(t.database.db);
    const [a, b] = await t.database.db.select().from(photos).where(eq(photos.userId, user.id));
    await t.database.db.update(photos).set({ analyzed: true, category: 'animals' }).where(eq(photos.id, a!.id));
    await repo.syncSmartAlbums(user.id, [a!.id]);
    expect(await smartAlbums(user.id, cookie)).toEqual({ animals: { n: 1, description: 'Smart album with 1 photo' } });
    // b analysed, but the sync that follows is another photo's: b is not looked at.
    await t.database.db.update(photos).set({ analyzed: true, category: 'animals' }).where(eq(photos.id, b!.id));
    await repo.syncSmartAlbums(user.id, [a!.id]);
    expect((await smartAlbums(user.id, cookie)).animals!.n).toBe(1);
    await repo.syncSmartAlbums(user.id, [b!.id]);
    expect((await smartAlbums(user.id, cookie)).animals!.n).toBe(2);
    // Re-analysed to food: its own sync moves it (Animals keeps a).
    await t.database.db.update(photos).set({ category: 'food_drink' }).where(eq(photos.id, b!.id));
    await repo.syncSmartAlbums(user.id, [b!.id]);
    expect(await smartAlbums(user.id, cookie)).toEqual({
      animals: { n: 1, description: 'Smart album with 1 photo' },
      food_drink: { n: 1, description: 'Smart album with 1 photo' },
    });
  });

  it('a category past 32,767 photos is rebuilt, and a delete there does not hold the event loop', async () => {
    const { cookie, user } = await signUp(t.app);
    await grow(user.id, 33_000, 'animals');
    // One statement of two parameters per membership passed PostgreSQL's 65,535 from 32,768
    // photos: the rebuild failed, and that account's smart albums were never made again.
    await createAlbumsRepository(t.database.db).syncSmartAlbums(user.id);
    expect((await smartAlbums(user.id, cookie)).animals).toEqual({
      n: 33_000,
      description: 'Smart album with 33000 photos',
    });

    const [victim] = await t.database.db
      .select({ id: photos.id })
      .from(photos)
      .where(and(eq(photos.userId, user.id), eq(photos.category, 'animals')))
      .limit(1);
    const lag = monitorEventLoopDelay({ resolution: 10 });
    lag.enable();
    const res = await t.app.inject({ method: 'DELETE', url: `/api/photos/${victim!.id}`, headers: { cookie } });
    lag.disable();
    expect(res.statusCode).toBe(200);
    expect((await smartAlbums(user.id, cookie)).animals!.n).toBe(32_999);
    // The rebuild copied its member list once per photo on the request thread: a 30,000-photo
    // category held every request of the server for 5 s. A bound far from both.
    expect(lag.max / 1e6).toBeLessThan(1000);
  });
});
