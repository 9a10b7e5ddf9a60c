import { sql } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH_QUERY_MAX } from '@domain/find';
import type { FastifyRequest } from 'fastify';
import { DEFAULT_RATE_LIMITS, PAGES_PER_WINDOW } from '../../http/rate-limits';
import { fromRoot } from '../../lib/paths';
import { createTestApp, signUp, type TestApp } from '../../test/harness';
import { photoUpload } from '../../test/multipart';
import { unfingerprintedLibrary } from './unfingerprinted';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

interface P {
  id: string;
  name: string;
  takenAt: string | null;
  uploadedAt: string;
}
interface Page {
  items: P[];
  nextCursor: string | null;
  total: number | null;
}

/** Uploads one photo to `app` (the shared test app unless given) and returns what the server answered for it. */
async function uploadPhoto(
  cookie: string,
  name: string,
  bytes: Buffer,
  app = t.app,
): Promise<{ id: string; thumbnailUrl: string }> {
  const { payload, headers } = photoUpload([{ name, bytes }]);
  const res = await app.inject({ method: 'POST', url: '/api/photos', headers: { ...headers, cookie }, payload });
  expect(res.statusCode, res.body).toBe(201);
  return (res.json() as { results: Array<{ photo: { id: string; thumbnailUrl: string } }> }).results[0]!.photo;
}

const upload = async (cookie: string, name: string, bytes: Buffer) => (await uploadPhoto(cookie, name, bytes)).id;

/** A small JPEG in one colour, with the EXIF date taken and camera given. */
const jpeg = (colour: string, exif?: { taken?: string; make?: string; model?: string }) => {
  const img = sharp({ create: { width: 96, height: 64, channels: 3, background: colour } }).jpeg();
  if (!exif) return img.toBuffer();
  return img
    .withExif({
      IFD0: { ...(exif.make ? { Make: exif.make } : {}), ...(exif.model ? { Model: exif.model } : {}) },
      ...(exif.taken ? { IFD2: { DateTimeOriginal: exif.taken } } : {}),
    })
    .toBuffer();
};

const get = (cookie: string, url: string) => t.app.inject({ method: 'GET', url, headers: { cookie } });
const timeline = async (cookie: string, qs: string): Promise<Page> => {
  const res = await get(cookie, `/api/photos/timeline?${qs}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Page;
};
const names = (p: Page) => p.items.map((i) => i.name);
const search = async (cookie: string, q: string) =>
  names(await timeline(cookie, `limit=50&q=${encodeURIComponent(q)}`));

describe('timeline by date taken', () => {
  it('orders by EXIF date taken, falling back to upload time, and pages by (taken_at, id)', async () => {
    const { cookie } = await signUp(t.app);
    await upload(cookie, 'beach.jpg', await jpeg('#2a7ab0', { taken: '2019:03:15 10:20:30' }));
    await upload(cookie, 'party.jpg', await jpeg('#b02a7a', { taken: '2021:07:04 21:00:00' }));
    await upload(cookie, 'screenshot.jpg', await jpeg('#7ab02a'));
    const all: P[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Page = await timeline(cookie, `limit=4${cursor ? `&cursor=${cursor}` : ''}`);
      // The count is made once, for the first page.
      expect(page.total).toBe(pages === 0 ? 13 : null);
      all.push(...page.items);
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(4);
    expect(all).toHaveLength(13);
    expect(new Set(all.map((p) => p.id)).size).toBe(13);
    // Newest taken first: the photo without EXIF (uploaded last), the demo library (uploaded at
    // sign-up, no EXIF date), then the two by their EXIF date even though they were uploaded later.
    expect(all[0]!.name).toBe('screenshot');
    expect(all.slice(-2).map((p) => p.name)).toEqual(['party', 'beach']);
    expect(all.at(-1)!.takenAt).toBe('2019-03-15T10:20:30.000Z');
    const at = all.map((p) => Date.parse(p.takenAt ?? p.uploadedAt));
    expect(at).toEqual([...at].sort((a, b) => b - a));
  });

  it('refuses a cursor it did not give out', async () => {
    const { cookie } = await signUp(t.app);
    const res = await get(cookie, '/api/photos/timeline?limit=5&cursor=bm90LWEtY3Vyc29y');
    expect(res.statusCode).toBe(400);
  });
});

describe('search', () => {
  it('finds by name, category, tags, description, camera, year and month, every word as a prefix', async () => {
    const { cookie } = await signUp(t.app);
    const beach = await upload(
      cookie,
      'beach-day.jpg',
      await jpeg('#2a7ab0', { taken: '2019:03:15 10:20:30', make: 'Apple', model: 'iPhone 12 Pro' }),
    );
    const lunch = await upload(
      cookie,
      'lunch.jpg',
      await jpeg('#b0a02a', { taken: '2024:06:01 12:00:00', make: 'Canon' }),
    );
    // What the analysis stores for a photo.
    await t.database.db.execute(
      sql`update photos set category = 'animals', tags = '["dog","grass"]'::jsonb, description = 'A dog running on the beach' where id = ${beach}`,
    );
    await t.database.db.execute(
      sql`update photos set category = 'food_drink', tags = '["burger"]'::jsonb, description = 'Lunch outside' where id = ${lunch}`,
    );
    expect(await search(cookie, 'dog')).toEqual(['beach-day']);
    expect(await search(cookie, 'iPhone')).toEqual(['beach-day']);
    expect(await search(cookie, 'iph')).toEqual(['beach-day']);
    expect(await search(cookie, 'food')).toEqual(['lunch']);
    expect(await search(cookie, 'BURGER')).toEqual(['lunch']);
    expect(await search(cookie, 'canon')).toEqual(['lunch']);
    expect(await search(cookie, '2024')).toEqual(['lunch']);
    expect(await search(cookie, 'March 2019')).toEqual(['beach-day']);
    expect(await search(cookie, 'running')).toEqual(['beach-day']);
    expect(await search(cookie, 'beach')).toEqual(['beach-day']);
    expect(await search(cookie, 'iphone 2024')).toEqual([]);
    expect(await search(cookie, '!!!')).toEqual([]);
    // The demo library's names are searchable too.
    expect((await search(cookie, 'coffee')).length).toBe(1);
    const page = await timeline(cookie, 'limit=50&q=dog');
    expect(page.total).toBe(1);
  });

  it('finds words whose letters carry combining marks (Hindi, Thai, a name in decomposed form) as typed', async () => {
    const { cookie } = await signUp(t.app);
    // A file name from macOS often arrives decomposed (e + U+0301); a keyboard types it composed.
    for (const [i, name] of ['नमस्ते दिल्ली.jpg', 'ภูเขา.jpg', 'Cafe\u0301 de Flore.jpg'].entries()) {
      await upload(cookie, name, await jpeg(`#${i}0${i}0${i}0`));
    }
    // Vowel signs and viramas are marks, not letters: split there, a word became pieces that
    // no word of the photo begins with, and the search found nothing.
    expect(await search(cookie, 'नमस्ते')).toEqual(['नमस्ते दिल्ली']);
    expect(await search(cookie, 'दिल्ली')).toEqual(['नमस्ते दिल्ली']);
    expect(await search(cookie, 'ภูเขา')).toEqual(['ภูเขา']);
    // Stored composed (NFC), as it is shown.
    expect(await search(cookie, 'Caf\u00e9')).toEqual(['Caf\u00e9 de Flore']);
    expect(await search(cookie, 'cafe\u0301 flore')).toEqual(['Caf\u00e9 de Flore']);
    // A mark alone is no word, as punctuation is not.
    expect(await search(cookie, '\u0301')).toEqual([]);
  });

  it('finds a word whatever its case, as PostgreSQL lowercases a photo’s words (Turkish, Greek, German, full-width)', async () => {
    const { cookie } = await signUp(t.app);
    const named = [
      'İstanbul trip.jpg',
      'istanbul harbour.jpg',
      // 'İstanbul' from macOS, decomposed: I + U+0307.
      'I\u0307stanbul night.jpg',
      'ΣΟΦΟΣ.jpg',
      'σοφος μικρός.jpg',
      'ILIK su.jpg',
      'Işık.jpg',
      'Straße.jpg',
      'STRASSE.jpg',
      'holiday 2024.jpg',
    ];
    for (const [i, name] of named.entries()) await upload(cookie, name, await jpeg(`#${i}${i}2${i}${i}0`));
    const sorted = async (q: string) => (await search(cookie, q)).sort();
    // The decomposed name is stored composed (NFC): 'İ' as one letter, which PostgreSQL lowercases
    // to 'i'. Stored as it arrived, its words began 'i' + U+0307, and 'istanbul' did not find it.
    const istanbul = ['\u0130stanbul night', 'istanbul harbour', 'İstanbul trip'].sort();
    // JavaScript lowercases 'İ' to i + U+0307, PostgreSQL to 'i': 'İstanbul' found nothing.
    expect(await sorted('İstanbul')).toEqual(istanbul);
    expect(await sorted('I\u0307STANBUL')).toEqual(istanbul);
    expect(await sorted('istanbul')).toEqual(istanbul);
    expect(await sorted('ISTANBUL trip')).toEqual(['İstanbul trip']);
    // A final capital sigma: 'ς' in JavaScript, 'σ' in PostgreSQL.
    expect(await sorted('ΣΟΦΟΣ')).toEqual(['σοφος μικρός', 'ΣΟΦΟΣ'].sort());
    expect(await sorted('σοφος')).toEqual(['σοφος μικρός', 'ΣΟΦΟΣ'].sort());
    // Dotless 'ı' is 'I' in capitals.
    expect(await sorted('ılık')).toEqual(['ILIK su']);
    expect(await sorted('ışık')).toEqual(['Işık']);
    // 'STRASSE' is how capitals write 'Straße'.
    expect(await sorted('Straße')).toEqual(['STRASSE', 'Straße']);
    expect(await sorted('strasse')).toEqual(['STRASSE', 'Straße']);
    // A wide-mode keyboard's letters and digits.
    expect(await sorted('ｉｓｔａｎｂｕｌ')).toEqual(istanbul);
    expect(await sorted('ＨＯＬＩＤＡＹ ２０２４')).toEqual(['holiday 2024']);
  });

  it('pages through matches and shows only the owner’s photos', async () => {
    const a = await signUp(t.app);
    const b = await signUp(t.app);
    for (const [i, c] of ['#111111', '#222222', '#333333'].entries()) {
      await upload(a.cookie, `zebra-${i}.jpg`, await jpeg(c));
    }
    await upload(b.cookie, 'zebra-of-b.jpg', await jpeg('#444444'));
    const first = await timeline(a.cookie, 'limit=2&q=zebra');
    expect(first.total).toBe(3);
    expect(first.nextCursor).not.toBeNull();
    const second = await timeline(a.cookie, `limit=2&q=zebra&cursor=${first.nextCursor}`);
    expect([...names(first), ...names(second)].sort()).toEqual(['zebra-0', 'zebra-1', 'zebra-2']);
    expect(second.nextCursor).toBeNull();
    expect(await search(b.cookie, 'zebra')).toEqual(['zebra-of-b']);
  });

  it('bounds the query length with a clear 400', async () => {
    const { cookie } = await signUp(t.app);
    const res = await get(cookie, `/api/photos/timeline?q=${'a'.repeat(SEARCH_QUERY_MAX + 1)}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain(`limited to ${SEARCH_QUERY_MAX} characters`);
    expect((await get(cookie, `/api/photos/timeline?q=${'a'.repeat(SEARCH_QUERY_MAX)}`)).statusCode).toBe(200);
  });

  it('needs a session', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/photos/timeline?q=dog' });
    expect(res.statusCode).toBe(401);
  });
});

describe("a category's pages (the organizer's 'View All N Photos')", () => {
  const ids = async (userId: string) =>
    (
      (await t.database.db.execute(sql`select id from photos where user_id = ${userId} order by id`)) as unknown as {
        rows: Array<{ id: string }>;
      }
    ).rows.map((r) => r.id);
  const mark = (id: string, analyzed: boolean, category: string | null) =>
    t.database.db.execute(sql`update photos set analyzed = ${analyzed}, category = ${category} where id = ${id}`);

  /** Every page of `category` at `limit`, with the first page's total and the number of pages. */
  async function allOf(cookie: string, category: string, limit: number) {
    const seen: P[] = [];
    const totals: Array<number | null> = [];
    let cursor: string | null = null;
    do {
      const page: Page = await timeline(
        cookie,
        `limit=${limit}&category=${category}${cursor ? `&cursor=${cursor}` : ''}`,
      );
      seen.push(...page.items);
      totals.push(page.total);
      cursor = page.nextCursor;
    } while (cursor);
    return { seen, totals };
  }

  it('pages through every analysed photo of the category the summary counts, and only the owner’s', async () => {
    const a = await signUp(t.app);
    const b = await signUp(t.app);
    const mine = await ids(a.user.id);
    // The demo library's ten: seven animals, one analysed without a category, one animal not
    // analysed yet (not counted), one left alone.
    for (const id of mine.slice(0, 7)) await mark(id, true, 'animals');
    await mark(mine[7]!, true, null);
    await mark(mine[8]!, false, 'animals');
    for (const id of (await ids(b.user.id)).slice(0, 3)) await mark(id, true, 'animals');

    const summary = (await get(a.cookie, '/api/photos/summary')).json() as {
      categories: Array<{ category: string; count: number }>;
    };
    expect(summary.categories.find((c) => c.category === 'animals')?.count).toBe(7);

    const { seen, totals } = await allOf(a.cookie, 'animals', 3);
    expect(totals).toEqual([7, null, null]);
    expect(seen.map((p) => p.id).sort()).toEqual(mine.slice(0, 7).sort());
    const at = seen.map((p) => Date.parse(p.takenAt ?? p.uploadedAt));
    expect(at).toEqual([...at].sort((x, y) => y - x));

    const uncategorized = await allOf(a.cookie, 'uncategorized', 50);
    expect(uncategorized.seen.map((p) => p.id)).toEqual([mine[7]]);
    expect((await allOf(a.cookie, 'people', 50)).totals).toEqual([0]);
    // Another account's category holds only its own.
    expect((await allOf(b.cookie, 'animals', 50)).seen).toHaveLength(3);
  });

  it('gives neither a duplicate nor a gap when photos join or leave the category between pages', async () => {
    const a = await signUp(t.app);
    const mine = await ids(a.user.id);
    for (const id of mine.slice(0, 6)) await mark(id, true, 'food_drink');
    const first = await timeline(a.cookie, 'limit=3&category=food_drink');
    const shown = new Set(first.items.map((p) => p.id));
    const unseen = mine.slice(0, 6).filter((id) => !shown.has(id));
    // One not yet shown leaves the category; the one shown first leaves it too.
    await mark(unseen[0]!, true, 'people');
    await mark(first.items[0]!.id, true, 'people');
    const second = await timeline(a.cookie, `limit=3&category=food_drink&cursor=${first.nextCursor}`);
    expect(second.items.map((p) => p.id).sort()).toEqual(unseen.slice(1).sort());
    expect(second.nextCursor).toBeNull();
  });

  it('refuses a category it does not know, and counts every page as built per request', async () => {
    const { cookie } = await signUp(t.app);
    for (const bad of ['Animals', 'animals%25', '%00', 'x'.repeat(10_000), '__proto__']) {
      const res = await get(cookie, `/api/photos/timeline?limit=5&category=${bad}`);
      expect(res.statusCode, bad).toBe(400);
    }
    expect((await get(cookie, '/api/photos/timeline?category=animals&category=people')).statusCode).toBe(400);
    // A category's first page is not one of the kept first pages: it is counted as a later page is.
    const rules = DEFAULT_RATE_LIMITS['GET /api/photos/timeline']!;
    const counting = rules.filter(
      (r) => r.max === PAGES_PER_WINDOW && r.when?.({ query: { limit: '60', category: 'animals' } } as FastifyRequest),
    );
    expect(counting).toHaveLength(1);
  });
});

describe('similar photos and possible duplicates', () => {
  const fig = () => sharp(fromRoot('assets/demo-photos/fig-in-red-bowl.jpg'));

  it('lists a re-encoded copy of a photo as most similar and both as possible duplicates, owner-only', async () => {
    const a = await signUp(t.app);
    const b = await signUp(t.app);
    // The demo library holds the fig photo; a smaller, re-encoded and brightened copy of it is uploaded.
    const copy = await fig().resize(700).modulate({ brightness: 1.08 }).jpeg({ quality: 60 }).toBuffer();
    const copyId = await upload(a.cookie, 'fig-copy.jpg', copy);
    await upload(b.cookie, 'fig-of-b.jpg', copy);

    const sim = await get(a.cookie, `/api/photos/${copyId}/similar`);
    expect(sim.statusCode, sim.body).toBe(200);
    const items = (sim.json() as { items: Array<P & { similarity: number }> }).items;
    expect(items[0]!.name).toBe('Fig in a Red Bowl');
    expect(items[0]!.similarity).toBeGreaterThanOrEqual(0.95);
    expect(items.length).toBeGreaterThan(1);
    expect(items.length).toBeLessThanOrEqual(12);
    expect(items.map((i) => i.name)).not.toContain('fig-of-b');
    expect(items.map((i) => i.id)).not.toContain(copyId);
    const s = items.map((i) => i.similarity);
    expect(s).toEqual([...s].sort((x, y) => y - x));

    const dup = await get(a.cookie, '/api/photos/duplicates');
    expect(dup.statusCode).toBe(200);
    const body = dup.json() as { name: string; groups: P[][]; photoCount: number };
    expect(body.name).toBe('Possible duplicates');
    expect(body.groups.map((g) => g.map((p) => p.name).sort())).toEqual([['Fig in a Red Bowl', 'fig-copy']]);
    expect(body.photoCount).toBe(2);

    // Someone else's photo is not found, as is an unknown id.
    expect((await get(b.cookie, `/api/photos/${copyId}/similar`)).statusCode).toBe(404);
    expect((await get(a.cookie, '/api/photos/00000000-0000-4000-8000-000000000000/similar')).statusCode).toBe(404);
    expect((await get(a.cookie, '/api/photos/not-a-uuid/similar')).statusCode).toBe(404);

    // Deleting the copy empties the album.
    expect(
      (await t.app.inject({ method: 'DELETE', url: `/api/photos/${copyId}`, headers: { cookie: a.cookie } }))
        .statusCode,
    ).toBe(200);
    const after = (await get(a.cookie, '/api/photos/duplicates')).json() as { groups: P[][] };
    expect(after.groups).toEqual([]);
  });

  it('does not call the ten different demo photos duplicates', async () => {
    const { cookie } = await signUp(t.app);
    const body = (await get(cookie, '/api/photos/duplicates')).json() as { groups: P[][]; photoCount: number };
    expect(body).toMatchObject({ groups: [], photoCount: 0 });
  });
});

describe('a photo deleted while the fingerprints still missing are made', () => {
  const rows = async <T>(q: ReturnType<typeof sql>) =>
    ((await t.database.db.execute(q)) as unknown as { rows: T[] }).rows;
  const library = () => unfingerprintedLibrary(t);

  /** While `run` is answered: the moment the photo's thumbnail is read, the owner deletes it (its file goes with it). */
  async function deletedWhileRead<R>(
    cookie: string,
    photo: { id: string; thumbnailKey: string },
    run: () => Promise<R>,
  ) {
    const blobs = t.app.ctx.blobs;
    const read = blobs.read;
    blobs.read = async (key) => {
      if (key === photo.thumbnailKey) {
        const del = await t.app.inject({ method: 'DELETE', url: `/api/photos/${photo.id}`, headers: { cookie } });
        expect(del.statusCode, del.body).toBe(200);
      }
      return read.call(blobs, key);
    };
    try {
      return await run();
    } finally {
      blobs.read = read;
    }
  }

  it('similar photos and duplicates answer without it (a 500 before); the photo itself is not found', async () => {
    const a = await library();
    const sim = await deletedWhileRead(a.cookie, a.gone, () => get(a.cookie, `/api/photos/${a.ids[0]}/similar`));
    expect(sim.statusCode, sim.body).toBe(200);
    expect((sim.json() as { items: P[] }).items.map((i) => i.id)).not.toContain(a.gone.id);
    // The rest of the batch was fingerprinted all the same.
    expect(await rows(sql`select 1 from photo_fingerprints where photo_id = ${a.ids[2]}`)).toHaveLength(1);

    const b = await library();
    const dup = await deletedWhileRead(b.cookie, b.gone, () => get(b.cookie, '/api/photos/duplicates'));
    expect(dup.statusCode, dup.body).toBe(200);

    const c = await library();
    const own = await deletedWhileRead(c.cookie, c.gone, () => get(c.cookie, `/api/photos/${c.gone.id}/similar`));
    expect(own.statusCode, own.body).toBe(404);
  });
});

describe("an upload's fingerprint", () => {
  it('is made from the thumbnail the upload holds, not read back from the store', async () => {
    const own = await createTestApp();
    try {
      const { cookie } = await signUp(own.app);
      const blobs = own.app.ctx.blobs;
      const read = blobs.read.bind(blobs);
      const keysRead: string[] = [];
      blobs.read = (key) => {
        keysRead.push(key);
        return read(key);
      };
      const photo = await uploadPhoto(cookie, 'held.jpg', await jpeg('#7a2ab0'), own.app);
      const thumbnailVersion = new URL(photo.thumbnailUrl, 'http://x').searchParams.get('v')!;
      // Close waits for the fingerprints made after an answer.
      await own.app.close();
      const found = (await own.database.db.execute(
        sql`select 1 from photo_fingerprints where photo_id = ${photo.id}`,
      )) as unknown as { rows: unknown[] };
      expect(found.rows).toHaveLength(1);
      expect(keysRead.filter((k) => k.startsWith(thumbnailVersion))).toEqual([]);
    } finally {
      await own.database.destroy();
      own.config.cleanup();
    }
  });
});

describe('stopping the server', () => {
  it('finishes the fingerprints of photos just uploaded before it closes', async () => {
    const own = await createTestApp();
    try {
      const { cookie } = await signUp(own.app);
      const { id } = await uploadPhoto(cookie, 'last.jpg', await jpeg('#2a7ab0'), own.app);
      // Stopped the moment the upload is answered: its fingerprint, made after the answer, is
      // written before close resolves (and so before the database would close).
      await own.app.close();
      const found = (await own.database.db.execute(
        sql`select 1 from photo_fingerprints where photo_id = ${id}`,
      )) as unknown as { rows: unknown[] };
      expect(found.rows).toHaveLength(1);
    } finally {
      await own.database.destroy();
      own.config.cleanup();
    }
  });
});
