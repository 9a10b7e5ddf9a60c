import { eq } from 'drizzle-orm';
import sharp from 'sharp';
import { DELETE_PHOTOS_MAX } from '@contract/photos-manage';
import { photos } from '../../db/schema';
import { createTestApp, signUp, testDbKind, type TestApp } from '../../test/harness';
import { createAlbumsRepository } from '../albums/albums.repository';
import { photoUpload } from '../../test/multipart';

/** A distinct small JPEG per seed (distinct bytes, so no blob is shared). */
const jpeg = (seed: number) =>
  sharp({ create: { width: 64, height: 48, channels: 3, background: { r: seed % 256, g: 40, b: 90 } } })
    .jpeg()
    .toBuffer();

/** A JPEG as a camera writes it: make, model, lens, exposure and the place it was taken. */
const cameraJpeg = () =>
  sharp({ create: { width: 120, height: 80, channels: 3, background: '#357' } })
    .jpeg()
    .withExif({
      IFD0: { Make: 'Canon', Model: 'Canon EOS R6' },
      IFD2: {
        DateTimeOriginal: '2024:05:06 07:08:09',
        ExposureTime: '1/250',
        FNumber: '28/10',
        ISOSpeedRatings: '200',
        FocalLength: '50/1',
        LensModel: 'RF50mm F1.8 STM',
      },
      IFD3: {
        GPSLatitudeRef: 'N',
        GPSLatitude: '48/1 51/1 2964/100',
        GPSLongitudeRef: 'E',
        GPSLongitude: '2/1 17/1 4020/100',
      },
    })
    .toBuffer();

describe(`managing photos: delete many, favourites, info, download (${testDbKind})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  type Uploaded = { id: string; name: string; url: string; favorite: boolean };
  const upload = async (cookie: string, files: Array<{ name: string; bytes: Buffer }>): Promise<Uploaded[]> => {
    const body = photoUpload(files);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/photos',
      headers: { ...body.headers, cookie },
      payload: body.payload,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().results.map((r: { photo: Uploaded }) => r.photo);
  };
  const get = (cookie: string, url: string) => t.app.inject({ method: 'GET', url, headers: { cookie } });
  const deleteMany = (cookie: string, ids: unknown) =>
    t.app.inject({ method: 'POST', url: '/api/photos/delete', headers: { cookie }, payload: { ids } });
  const favorite = (cookie: string, id: string, value: boolean) =>
    t.app.inject({
      method: 'PUT',
      url: `/api/photos/${id}/favorite`,
      headers: { cookie },
      payload: { favorite: value },
    });
  const rowsOf = (userId: string) => t.database.db.select().from(photos).where(eq(photos.userId, userId));

  it('deletes many photos at once: rows, blobs and counts go together', async () => {
    const { cookie, user } = await signUp(t.app);
    const up = await upload(cookie, [
      { name: 'a.jpg', bytes: await jpeg(1) },
      { name: 'b.jpg', bytes: await jpeg(2) },
      { name: 'c.jpg', bytes: await jpeg(3) },
    ]);
    const before = (await get(cookie, '/api/photos/summary')).json().total;
    const rows = (await rowsOf(user.id)).filter((r) => r.id === up[0]!.id || r.id === up[1]!.id);
    expect(rows).toHaveLength(2);

    const res = await deleteMany(cookie, [up[0]!.id, up[1]!.id, up[1]!.id]);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ deleted: 2, message: '2 photos deleted' });

    const left = (await rowsOf(user.id)).map((r) => r.id);
    expect(left).not.toContain(up[0]!.id);
    expect(left).not.toContain(up[1]!.id);
    expect(left).toContain(up[2]!.id);
    for (const r of rows)
      for (const k of [r.originalKey, r.previewKey, r.thumbnailKey]) expect(await t.app.ctx.blobs.has(k)).toBe(false);
    expect((await get(cookie, '/api/photos/summary')).json().total).toBe(before - 2);
    expect((await get(cookie, up[0]!.url)).statusCode).toBe(404);
  });

  it('is all or nothing: a foreign, unknown or malformed id deletes none, with a clear 4xx', async () => {
    const a = await signUp(t.app);
    const b = await signUp(t.app);
    const [mine] = await upload(a.cookie, [{ name: 'mine.jpg', bytes: await jpeg(10) }]);
    const [theirs] = await upload(b.cookie, [{ name: 'theirs.jpg', bytes: await jpeg(11) }]);

    const foreign = await deleteMany(a.cookie, [mine!.id, theirs!.id]);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().message).toBe('Photo not found. Nothing was deleted.');
    const unknown = await deleteMany(a.cookie, [mine!.id, '00000000-0000-4000-8000-000000000000']);
    expect(unknown.statusCode).toBe(404);
    const malformed = await deleteMany(a.cookie, [mine!.id, '../etc/passwd']);
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().message).toMatch(/is not a photo id; nothing was deleted/);
    expect((await deleteMany(a.cookie, [])).statusCode).toBe(400);
    expect((await deleteMany(a.cookie, 'x')).statusCode).toBe(400);
    const tooMany = Array.from({ length: DELETE_PHOTOS_MAX + 1 }, () => mine!.id);
    expect((await deleteMany(a.cookie, tooMany)).statusCode).toBe(400);
    expect((await deleteMany('', [mine!.id])).statusCode).toBe(401);

    expect((await get(a.cookie, `/api/photos/${mine!.id}`)).statusCode).toBe(200);
    expect((await get(b.cookie, `/api/photos/${theirs!.id}`)).statusCode).toBe(200);
  });

  it('a deleted photo leaves its smart album at once, and an emptied smart album goes', async () => {
    const { cookie, user } = await signUp(t.app);
    const up = await upload(cookie, [
      { name: 'cat.jpg', bytes: await jpeg(20) },
      { name: 'dog.jpg', bytes: await jpeg(21) },
    ]);
    for (const p of up)
      await t.database.db.update(photos).set({ analyzed: true, category: 'animals' }).where(eq(photos.id, p.id));
    await createAlbumsRepository(t.database.db).syncSmartAlbums(user.id);
    const animals = () =>
      get(cookie, '/api/albums').then((r) => r.json().find((a: { name: string }) => a.name === 'Animals'));
    expect((await animals()).photoCount).toBe(2);

    expect((await deleteMany(cookie, [up[0]!.id])).statusCode).toBe(200);
    expect(await animals()).toMatchObject({ photoCount: 1, description: 'Smart album with 1 photo' });
    expect((await deleteMany(cookie, [up[1]!.id])).statusCode).toBe(200);
    expect(await animals()).toBeUndefined();
  });

  it('favourites persist, list newest first and make the Favorites album; only the owner can set them', async () => {
    const a = await signUp(t.app);
    const b = await signUp(t.app);
    const up = await upload(a.cookie, [
      { name: 'one.jpg', bytes: await jpeg(30) },
      { name: 'two.jpg', bytes: await jpeg(31) },
    ]);
    expect(up.every((p) => p.favorite === false)).toBe(true);
    expect((await get(a.cookie, '/api/albums')).json().some((x: { id: string }) => x.id === 'favorites')).toBe(false);

    for (const p of up) {
      const res = await favorite(a.cookie, p.id, true);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ id: p.id, favorite: true });
    }
    expect((await favorite(a.cookie, up[0]!.id, true)).statusCode).toBe(200);
    expect((await get(a.cookie, `/api/photos/${up[0]!.id}`)).json().favorite).toBe(true);

    const page = (await get(a.cookie, '/api/photos/favorites?limit=1')).json();
    expect(page.total).toBe(2);
    expect(page.items.map((p: Uploaded) => p.id)).toEqual([up[1]!.id]);
    const next = (await get(a.cookie, `/api/photos/favorites?limit=1&cursor=${page.nextCursor}`)).json();
    expect(next.items.map((p: Uploaded) => p.id)).toEqual([up[0]!.id]);
    expect(next.nextCursor).toBeNull();
    expect((await get(a.cookie, '/api/photos/favorites?cursor=bogus')).statusCode).toBe(400);

    const albums = (await get(a.cookie, '/api/albums')).json();
    expect(albums[0]).toMatchObject({ id: 'favorites', name: 'Favorites', isSmartAlbum: true, photoCount: 2 });

    expect((await favorite(b.cookie, up[0]!.id, false)).statusCode).toBe(404);
    expect((await get(b.cookie, '/api/photos/favorites')).json()).toEqual({ items: [], nextCursor: null, total: 0 });
    expect((await favorite(a.cookie, 'demo', true)).statusCode).toBe(404);

    await favorite(a.cookie, up[0]!.id, false);
    await favorite(a.cookie, up[1]!.id, false);
    expect((await get(a.cookie, '/api/photos/favorites')).json().total).toBe(0);
    expect((await get(a.cookie, '/api/albums')).json().some((x: { id: string }) => x.id === 'favorites')).toBe(false);
  });

  it('Info answers the EXIF the camera wrote: date, camera, lens, exposure, place, plus size and dimensions', async () => {
    const a = await signUp(t.app);
    const b = await signUp(t.app);
    const bytes = await cameraJpeg();
    const [p] = await upload(a.cookie, [{ name: 'IMG_0042.JPG', bytes }]);
    const res = await get(a.cookie, `/api/photos/${p!.id}/info`);
    expect(res.statusCode, res.body).toBe(200);
    const info = res.json();
    expect(info).toMatchObject({
      id: p!.id,
      name: 'IMG_0042',
      fileName: 'IMG_0042.JPG',
      mime: 'image/jpeg',
      camera: 'Canon EOS R6',
      lens: 'RF50mm F1.8 STM',
      exposureTime: 0.004,
      fNumber: 2.8,
      iso: 200,
      focalLength: 50,
      width: 120,
      height: 80,
      size: bytes.length,
      originalSize: bytes.length,
      category: null,
      tags: [],
      favorite: false,
      edited: false,
    });
    expect(info.takenAt).toMatch(/^2024-05-0[56]T/);
    expect(info.place.latitude).toBeCloseTo(48.8582, 3);
    expect(info.place.longitude).toBeCloseTo(2.2945, 3);

    const [plain] = await upload(a.cookie, [{ name: 'plain.jpg', bytes: await jpeg(40) }]);
    expect((await get(a.cookie, `/api/photos/${plain!.id}/info`)).json()).toMatchObject({
      camera: null,
      lens: null,
      exposureTime: null,
      place: null,
      takenAt: null,
    });
    expect((await get(b.cookie, `/api/photos/${p!.id}/info`)).statusCode).toBe(404);
  });

  it('Info describes an edited photo as it is shown and downloaded: its file name, type and dimensions', async () => {
    // Larger than an edit's long side (4096 px), of a type an edit is not (a JPEG): the panel named
    // the uploaded 'scan.png' at 4099 x 3001 while 'Download' saved 'scan (edited).jpg' at 4096 px.
    const a = await signUp(t.app);
    const bytes = await sharp({ create: { width: 4099, height: 3001, channels: 3, background: '#468' } })
      .png()
      .toBuffer();
    const [p] = await upload(a.cookie, [{ name: 'scan.png', bytes }]);
    const info = async () => (await get(a.cookie, `/api/photos/${p!.id}/info`)).json();
    const download = async () => {
      const res = await get(a.cookie, `/api/photos/${p!.id}/download?version=current`);
      expect(res.statusCode, res.body).toBe(200);
      const { width, height } = await sharp(res.rawPayload).metadata();
      const star = /filename\*=UTF-8''(.*)$/.exec(res.headers['content-disposition'] as string)![1]!;
      return { fileName: decodeURIComponent(star), mime: res.headers['content-type'], width, height };
    };
    const shown = (i: Record<string, unknown>) => ({
      fileName: i.fileName,
      mime: i.mime,
      width: i.width,
      height: i.height,
    });
    expect(shown(await info())).toEqual({ fileName: 'scan.png', mime: 'image/png', width: 4099, height: 3001 });
    expect(await download()).toEqual(shown(await info()));

    const edit = (url: string, payload: object) =>
      t.app.inject({ method: 'POST', url, headers: { cookie: a.cookie }, payload });
    const applied = await edit('/api/photo-filters/apply', { photoId: p!.id, filterName: 'vintage', intensity: 100 });
    expect(applied.statusCode, applied.body).toBe(200);
    // 3001 x 4096 / 4099 = 2998.8: the render rounds it.
    expect(shown(await info())).toEqual({
      fileName: 'scan (edited).jpg',
      mime: 'image/jpeg',
      width: 4096,
      height: 2999,
    });
    expect(await download()).toEqual(shown(await info()));

    const reverted = await edit('/api/photo-filters/revert', { photoId: p!.id });
    expect(reverted.statusCode, reverted.body).toBe(200);
    expect(shown(await info())).toEqual({ fileName: 'scan.png', mime: 'image/png', width: 4099, height: 3001 });
  });

  it("downloads the original as an attachment under the photo's own, safe file name; owner only", async () => {
    const a = await signUp(t.app);
    const b = await signUp(t.app);
    const bytes = await jpeg(50);
    const [p] = await upload(a.cookie, [{ name: 'Été à Paris.jpeg', bytes }]);
    for (const version of ['original', 'current']) {
      const res = await get(a.cookie, `/api/photos/${p!.id}/download?version=${version}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-type']).toBe('image/jpeg');
      expect(res.headers['content-disposition']).toBe(
        `attachment; filename="_t_ _ Paris.jpeg"; filename*=UTF-8''%C3%89t%C3%A9%20%C3%A0%20Paris.jpeg`,
      );
      expect(Buffer.compare(res.rawPayload, bytes)).toBe(0);
    }
    expect((await get(a.cookie, `/api/photos/${p!.id}/download?version=thumbnail`)).statusCode).toBe(400);
    expect((await get(b.cookie, `/api/photos/${p!.id}/download`)).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: `/api/photos/${p!.id}/download` })).statusCode).toBe(401);

    // The demo library keeps no uploaded name: the photo's name and its type's extension.
    const demo = (await get(a.cookie, '/api/photos')).json().find((x: { isDemo: boolean }) => x.isDemo);
    const d = await get(a.cookie, `/api/photos/${demo.id}/download`);
    expect(d.statusCode).toBe(200);
    expect(d.headers['content-disposition']).toMatch(
      /^attachment; filename="[^"/\\]+\.(jpg|png|webp)"; filename\*=UTF-8''/,
    );
  });

  it('a long name of emoji downloads (original and edited) under a name cut between characters, never inside one', async () => {
    // Names are cut to 180 UTF-16 units: a cut between an emoji's two halves left a lone surrogate,
    // on which encodeURIComponent throws, and every download of the photo answered a 500.
    const a = await signUp(t.app);
    const names = [`a${'😀'.repeat(89)}`, `a${'😀'.repeat(88)}.j`, `ab${'😀'.repeat(95)}.jpeg`];
    const uploaded = await upload(
      a.cookie,
      await Promise.all(names.map(async (name, i) => ({ name, bytes: await jpeg(70 + i) }))),
    );
    for (const [i, p] of uploaded.entries()) {
      for (const edited of [false, true]) {
        if (edited) {
          const body = { photoId: p.id, filterName: 'vintage', intensity: 100 };
          const applied = await t.app.inject({
            method: 'POST',
            url: '/api/photo-filters/apply',
            headers: { cookie: a.cookie },
            payload: body,
          });
          expect(applied.statusCode, applied.body).toBe(200);
        }
        const res = await get(a.cookie, `/api/photos/${p.id}/download?version=current`);
        expect(res.statusCode, `${names[i]} edited=${edited}: ${res.body}`).toBe(200);
        const star = /filename\*=UTF-8''(.*)$/.exec(res.headers['content-disposition'] as string)![1]!;
        const saved = decodeURIComponent(star);
        expect(saved).toMatch(edited ? /^a.*\.jpg$/ : /^a.*\.(jpg|jpeg)$/);
        expect(saved.length).toBeLessThanOrEqual(180);
        const info = (await get(a.cookie, `/api/photos/${p.id}/info`)).json();
        expect(info.name).not.toContain('\uFFFD');
        expect(info.fileName).not.toContain('\uFFFD');
      }
    }
  });

  it("deleting demo photos keeps the demo library's files for the next account", async () => {
    const a = await signUp(t.app);
    const demo = (await get(a.cookie, '/api/photos')).json() as Array<{ id: string; name: string; url: string }>;
    const rows = await rowsOf(a.user.id);
    const res = await deleteMany(
      a.cookie,
      demo.map((p) => p.id),
    );
    expect(res.statusCode, res.body).toBe(200);
    for (const r of rows) expect(await t.app.ctx.blobs.has(r.originalKey)).toBe(true);

    // Even a demo file removed behind the app's back (the orphan sweep) is written again at sign-up.
    const cup = rows.find((r) => r.name === 'Coffee Cup')!;
    await t.app.ctx.blobs.delete(cup.originalKey);
    const b = await signUp(t.app);
    const theirs = (await get(b.cookie, '/api/photos')).json() as Array<{ name: string; url: string }>;
    expect(theirs).toHaveLength(demo.length);
    for (const p of theirs) expect((await get(b.cookie, p.url)).statusCode, p.name).toBe(200);
  });
});
