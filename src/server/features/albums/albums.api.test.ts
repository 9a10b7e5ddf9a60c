import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, signUp, type TestApp } from '../../test/harness';
import { albumPhotos, albums } from '../../db/schema';
import { createAlbumsRepository, MANUAL_ALBUMS_MAX } from './albums.repository';
import {
  ALBUM_LIMIT_MESSAGE,
  ALBUMS_LIST_MAX,
  createAlbumsService,
  IDEMPOTENCY_KEY_MESSAGE,
  KEY_REUSED_MESSAGE,
} from './albums.service';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

const photoIds = async (cookie: string): Promise<string[]> =>
  (
    (await t.app.inject({ method: 'GET', url: '/api/photos', headers: { cookie } })).json() as Array<{ id: string }>
  ).map((p) => p.id);
const albumsOf = async (cookie: string) =>
  (await t.app.inject({ method: 'GET', url: '/api/albums', headers: { cookie } })).json() as Array<{
    name: string;
    description: string;
    isSmartAlbum: boolean;
    photoCount: number;
  }>;
const create = (cookie: string, payload: Record<string, unknown>, key?: string | string[]) =>
  t.app.inject({
    method: 'POST',
    url: '/api/albums',
    headers: key === undefined ? { cookie } : { cookie, 'idempotency-key': key },
    payload,
  });

describe('albums API', () => {
  it('creates an album from own photos and lists it', async () => {
    const { cookie } = await signUp(t.app);
    expect(await albumsOf(cookie)).toEqual([]);
    const [p1, p2] = await photoIds(cookie);
    const res = await create(cookie, { name: '  Trip  ', description: 'Album with 2 photos', photoIds: [p1, p2] });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      name: 'Trip',
      description: 'Album with 2 photos',
      isSmartAlbum: false,
      photoCount: 2,
    });
    expect(await albumsOf(cookie)).toEqual([
      expect.objectContaining({ name: 'Trip', isSmartAlbum: false, photoCount: 2 }),
    ]);
  });

  it("refuses another user's photo and creates nothing", async () => {
    const a = await signUp(t.app);
    const b = await signUp(t.app);
    const [mine] = await photoIds(a.cookie);
    const [theirs] = await photoIds(b.cookie);
    const res = await create(a.cookie, { name: 'Mixed', photoIds: [mine, theirs] });
    expect(res.statusCode).toBe(404);
    expect(await albumsOf(a.cookie)).toEqual([]);
    expect(await albumsOf(b.cookie)).toEqual([]);
  });

  it('refuses unknown photo ids and creates nothing', async () => {
    const { cookie } = await signUp(t.app);
    const [mine] = await photoIds(cookie);
    for (const unknown of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const res = await create(cookie, { name: 'Ghost', photoIds: [mine, unknown] });
      expect([400, 404]).toContain(res.statusCode);
    }
    expect(await albumsOf(cookie)).toEqual([]);
  });

  it('refuses a blank name or no photos with the spec message', async () => {
    const { cookie } = await signUp(t.app);
    const [mine] = await photoIds(cookie);
    for (const payload of [
      { name: '   ', photoIds: [mine] },
      { name: '', photoIds: [mine] },
      // Nothing to see: a zero-width space, a direction mark with a word joiner, a Hangul filler.
      { name: '\u200b', photoIds: [mine] },
      { name: ' \u200e\u2060 ', photoIds: [mine] },
      { name: '\u3164', photoIds: [mine] },
      { name: 'Empty', photoIds: [] },
    ]) {
      const res = await create(cookie, payload);
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe('Please enter album name and select photos.');
    }
    expect(await albumsOf(cookie)).toEqual([]);
  });

  it('a photo deleted while its album is being made: 404 and no album, not a database error', async () => {
    const { cookie, user } = await signUp(t.app);
    const [keep, gone] = await photoIds(cookie);
    const repo = createAlbumsRepository(t.database.db);
    // The delete lands after the request's photos were checked, just before the album is written.
    const service = createAlbumsService({
      ...repo,
      async createManual(...args: Parameters<typeof repo.createManual>) {
        const del = await t.app.inject({ method: 'DELETE', url: `/api/photos/${gone}`, headers: { cookie } });
        expect(del.statusCode).toBe(200);
        return repo.createManual(...args);
      },
    });
    await expect(service.create(user.id, { name: 'Raced', photoIds: [keep!, gone!] })).rejects.toMatchObject({
      statusCode: 404,
      message: 'Photo not found.',
    });
    expect(await albumsOf(cookie)).toEqual([]);
  });

  it('stops at the album cap, racing creations included, so the list always holds every album', async () => {
    const { cookie, user } = await signUp(t.app);
    const [p1] = await photoIds(cookie);
    // Written directly: the API's own rate limit (60 per 5 minutes) would take the test minutes.
    await t.database.db
      .insert(albums)
      .values(Array.from({ length: MANUAL_ALBUMS_MAX - 1 }, (_, i) => ({ userId: user.id, name: `Old ${i}` })));
    const raced = await Promise.all([1, 2, 3].map((i) => create(cookie, { name: `Last ${i}`, photoIds: [p1] })));
    expect(raced.map((r) => r.statusCode).sort()).toEqual([201, 409, 409]);
    for (const r of raced.filter((x) => x.statusCode === 409)) expect(r.json().message).toBe(ALBUM_LIMIT_MESSAGE);
    const refused = await create(cookie, { name: 'One more', photoIds: [p1] });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toBe(ALBUM_LIMIT_MESSAGE);
    const listed = await albumsOf(cookie);
    expect(listed.filter((a) => !a.isSmartAlbum)).toHaveLength(MANUAL_ALBUMS_MAX);
    expect(listed.some((a) => a.name === 'One more')).toBe(false);
    // Room left in the list for the six smart albums and Favorites.
    expect(MANUAL_ALBUMS_MAX + 7).toBeLessThanOrEqual(ALBUMS_LIST_MAX);
    // Another account is not affected by this one's albums.
    const other = await signUp(t.app);
    const [o1] = await photoIds(other.cookie);
    expect((await create(other.cookie, { name: 'Mine', photoIds: [o1] })).statusCode).toBe(201);
  });

  // A Create Album whose answer was lost to the connection and pressed again made the album twice,
  // and the copy took a place under the cap.
  it('makes an album once per Idempotency-Key: a retry is answered with the first album', async () => {
    const { cookie, user } = await signUp(t.app);
    const [p1, p2] = await photoIds(cookie);
    const key = 'c0ffee00-1234-4abc-8def-0123456789ab';
    const body = { name: 'Trip', description: 'Album with 2 photos', photoIds: [p1, p2] };
    const first = await create(cookie, body, key);
    expect(first.statusCode).toBe(201);
    // Again, and twice at once (the first still in flight when the retry comes).
    const again = await Promise.all([
      create(cookie, body, key),
      create(cookie, { ...body, name: ' Trip ', photoIds: [p2, p1, p2] }, key),
    ]);
    for (const r of again) {
      expect(r.statusCode).toBe(201);
      expect(r.json()).toEqual(first.json());
    }
    expect((await albumsOf(cookie)).filter((a) => !a.isSmartAlbum)).toHaveLength(1);

    // The same key for another album is refused and makes nothing.
    const other = await create(cookie, { ...body, name: 'Other' }, key);
    expect(other.statusCode).toBe(422);
    expect(other.json().message).toBe(KEY_REUSED_MESSAGE);
    const fewer = await create(cookie, { ...body, photoIds: [p1] }, key);
    expect(fewer.statusCode).toBe(422);
    expect((await albumsOf(cookie)).map((a) => a.name)).toEqual(['Trip']);

    // A new key (the next album the form makes), or none, makes a new album.
    expect((await create(cookie, body, 'c0ffee00-1234-4abc-8def-0123456789ac')).statusCode).toBe(201);
    expect((await create(cookie, body)).statusCode).toBe(201);
    expect(await albumsOf(cookie)).toHaveLength(3);

    // Another user's key is theirs: the same key makes their own album, never answers this one.
    const b = await signUp(t.app);
    const [theirs] = await photoIds(b.cookie);
    const made = await create(b.cookie, { name: 'Trip', photoIds: [theirs] }, key);
    expect(made.statusCode).toBe(201);
    expect(made.json().id).not.toBe(first.json().id);
    expect((await create(b.cookie, body, key)).statusCode).toBe(422);

    // At the cap, the retry of an album made before it is still answered with that album.
    await t.database.db
      .insert(albums)
      .values(Array.from({ length: MANUAL_ALBUMS_MAX - 3 }, (_, i) => ({ userId: user.id, name: `Old ${i}` })));
    expect((await create(cookie, { ...body, name: 'New' })).statusCode).toBe(409);
    const retried = await create(cookie, body, key);
    expect(retried.statusCode).toBe(201);
    expect(retried.json().id).toBe(first.json().id);
  });

  it('refuses a malformed Idempotency-Key with a 400 and makes nothing', async () => {
    const { cookie } = await signUp(t.app);
    const [p1] = await photoIds(cookie);
    for (const key of [
      '',
      'short',
      'x'.repeat(129),
      'has space in it',
      'key\u00e9accented',
      '../../etc/passwd',
      ['c0ffee00-1234-4abc-8def-0123456789ab', 'c0ffee00-1234-4abc-8def-0123456789ac'],
    ]) {
      const res = await create(cookie, { name: 'Keyed', photoIds: [p1] }, key);
      expect(res.statusCode, JSON.stringify(key)).toBe(400);
      expect(res.json().message).toBe(IDEMPOTENCY_KEY_MESSAGE);
    }
    expect(await albumsOf(cookie)).toEqual([]);
  });

  it("counts an album's photos as they are now: photos deleted elsewhere leave its description", async () => {
    const { cookie } = await signUp(t.app);
    const [p1, p2, p3] = await photoIds(cookie);
    expect(
      (await create(cookie, { name: 'Trip', description: 'Album with 3 photos', photoIds: [p1, p2, p3] })).statusCode,
    ).toBe(201);
    expect((await t.app.inject({ method: 'DELETE', url: `/api/photos/${p1}`, headers: { cookie } })).statusCode).toBe(
      200,
    );
    expect(await albumsOf(cookie)).toEqual([
      expect.objectContaining({ name: 'Trip', description: 'Album with 2 photos', photoCount: 2 }),
    ]);
    // A description the user wrote is theirs, whatever the count.
    expect((await create(cookie, { name: 'Notes', description: 'From the lake', photoIds: [p2, p3] })).statusCode).toBe(
      201,
    );
    const del = await t.app.inject({
      method: 'POST',
      url: '/api/photos/delete',
      headers: { cookie },
      payload: { ids: [p2] },
    });
    expect(del.statusCode).toBe(200);
    expect(await albumsOf(cookie)).toEqual([
      expect.objectContaining({ name: 'Notes', description: 'From the lake', photoCount: 1 }),
      expect.objectContaining({ name: 'Trip', description: 'Album with 1 photos', photoCount: 1 }),
    ]);
  });

  it('an album whose photos are all deleted goes, and gives its place back under the cap', async () => {
    const { cookie, user } = await signUp(t.app);
    const [p1, p2, p3] = await photoIds(cookie);
    // Written directly (the API's rate limit), each holding a photo that stays.
    const old = await t.database.db
      .insert(albums)
      .values(Array.from({ length: MANUAL_ALBUMS_MAX - 1 }, (_, i) => ({ userId: user.id, name: `Old ${i}` })))
      .returning({ id: albums.id });
    await t.database.db.insert(albumPhotos).values(old.map((a) => ({ albumId: a.id, photoId: p3! })));
    expect((await create(cookie, { name: 'Last', photoIds: [p1, p2] })).statusCode).toBe(201);
    expect((await create(cookie, { name: 'Refused', photoIds: [p3] })).statusCode).toBe(409);
    // Its photos go, one alone and one in a batch: nothing is left to list, open or count.
    expect((await t.app.inject({ method: 'DELETE', url: `/api/photos/${p1}`, headers: { cookie } })).statusCode).toBe(
      200,
    );
    expect((await albumsOf(cookie)).some((a) => a.name === 'Last')).toBe(true);
    const del = await t.app.inject({
      method: 'POST',
      url: '/api/photos/delete',
      headers: { cookie },
      payload: { ids: [p2] },
    });
    expect(del.statusCode).toBe(200);
    const listed = await albumsOf(cookie);
    expect(listed.some((a) => a.name === 'Last')).toBe(false);
    expect(listed).toHaveLength(MANUAL_ALBUMS_MAX - 1);
    // The place it held is free again: without this an account at the cap that deleted an
    // album's photos could never make another album (albums cannot be deleted).
    expect((await create(cookie, { name: 'Again', photoIds: [p3] })).statusCode).toBe(201);
  });

  it('its last photos deleted from two tabs at once: both answered, the album gone, no database error', async () => {
    const { cookie } = await signUp(t.app);
    const [p1, p2, p3] = await photoIds(cookie);
    expect((await create(cookie, { name: 'Pair', photoIds: [p1, p2] })).statusCode).toBe(201);
    expect((await create(cookie, { name: 'Kept', photoIds: [p2, p3] })).statusCode).toBe(201);
    const deleted = await Promise.all([
      t.app.inject({ method: 'DELETE', url: `/api/photos/${p1}`, headers: { cookie } }),
      t.app.inject({ method: 'POST', url: '/api/photos/delete', headers: { cookie }, payload: { ids: [p2] } }),
    ]);
    expect(deleted.map((r) => r.statusCode)).toEqual([200, 200]);
    expect(await albumsOf(cookie)).toEqual([
      expect.objectContaining({ name: 'Kept', description: 'Album with 1 photos', photoCount: 1 }),
    ]);
  });

  it("lists a user's albums in alphabetical order whatever their letter case, accents or numbers", async () => {
    const { cookie } = await signUp(t.app);
    const [p1] = await photoIds(cookie);
    for (const name of ['zoo', 'Trip 10', 'Banana', 'Éclair', 'apple', 'Trip 2']) {
      expect((await create(cookie, { name, photoIds: [p1] })).statusCode).toBe(201);
    }
    // In byte order (PGlite's collation): Banana, Trip 10, Trip 2, apple, zoo, Éclair.
    expect((await albumsOf(cookie)).map((a) => a.name)).toEqual([
      'apple',
      'Banana',
      'Éclair',
      'Trip 2',
      'Trip 10',
      'zoo',
    ]);
  });

  it('needs a session', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/albums' })).statusCode).toBe(401);
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/albums', payload: { name: 'x', photoIds: [] } })).statusCode,
    ).toBe(401);
  });
});
