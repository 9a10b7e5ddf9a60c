import { and, eq, inArray, sql } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app';
import { albumPhotos, albums, dataPasses, jobs, photos } from '../../db/schema';
import { createTestApp, signUp, testConfig, testDbKind, type TestApp } from '../../test/harness';
import { insertStoredPhoto } from '../../test/stored-photo';
import { createAnalysisService } from '../analysis/analysis.service';
import { createAlbumsRepository } from './albums.repository';
import { createPasses } from '../../db/passes';
import { repairSmartAlbums, repairSmartAlbumsOnce, SMART_ALBUM_REPAIR } from './albums.service';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

const db = () => t.database.db;
const set = (ids: string[], v: Partial<typeof photos.$inferInsert>) =>
  db().update(photos).set(v).where(inArray(photos.id, ids));

/** The user's smart albums by key, each with its photo ids sorted. */
async function smartAlbumsOf(userId: string): Promise<Record<string, string[]>> {
  const rows = await db()
    .select({ key: albums.smartKey, photoId: albumPhotos.photoId })
    .from(albums)
    .leftJoin(albumPhotos, eq(albumPhotos.albumId, albums.id))
    .where(and(eq(albums.userId, userId), eq(albums.isSmartAlbum, true)));
  const out: Record<string, string[]> = {};
  for (const r of rows) (out[r.key!] ??= []).push(...(r.photoId ? [r.photoId] : []));
  for (const k of Object.keys(out)) out[k]!.sort();
  return out;
}

/**
 * A library as rounds before eleven could leave it: photos analysed whose album write was lost
 * (three animals, one food photo with a face), one held by the smart album of its old category.
 */
async function brokenLibrary() {
  const { user } = await signUp(t.app);
  const ids = (await db().select({ id: photos.id }).from(photos).where(eq(photos.userId, user.id))).map((p) => p.id);
  const [a, b, c, food, moved, plain] = ids as [string, string, string, string, string, string];
  await set([moved], { analyzed: true, category: 'vehicles_transport' });
  await createAlbumsRepository(db()).syncSmartAlbums(user.id, [moved]);
  // Analysed again, and that result's album write lost too.
  await set([moved], { category: 'animals' });
  await set([a, b, c], { analyzed: true, category: 'animals' });
  await set([food], { analyzed: true, category: 'food_drink', faceCount: 2 });
  await set([plain], { analyzed: true, category: 'uncategorized' });
  const repaired = {
    animals: [a, b, c, moved].sort(),
    food_drink: [food],
    people: [food],
  };
  return { userId: user.id, repaired };
}

describe(`the smart-album repair (${testDbKind})`, () => {
  it('puts analysed photos into the smart albums they belong to and out of others, in batches; then reads only', async () => {
    const broken = await brokenLibrary();
    // Another account in step: left as it is.
    const { user: other } = await signUp(t.app);
    const [o] = await db().select({ id: photos.id }).from(photos).where(eq(photos.userId, other.id));
    await set([o!.id], { analyzed: true, category: 'nature_landscape' });
    await createAlbumsRepository(db()).syncSmartAlbums(other.id);
    const otherBefore = await smartAlbumsOf(other.id);
    expect(await smartAlbumsOf(broken.userId)).toEqual({ vehicles_transport: [expect.any(String)] });

    const repo = createAlbumsRepository(db());
    const [{ n }] = (await db()
      .select({ n: sql<number>`count(*)::int` })
      .from(photos)) as [{ n: number }];
    const run = await repairSmartAlbums(repo, { batch: 7 });
    expect(run).toEqual({ read: n, repaired: 5, complete: true });
    // The album left empty went with the photo it held.
    expect(await smartAlbumsOf(broken.userId)).toEqual(broken.repaired);
    expect(await smartAlbumsOf(other.id)).toEqual(otherBefore);

    // Idempotent: everything in step now, a second run writes nothing.
    expect(await repairSmartAlbums(repo, { batch: 7 })).toEqual({ read: n, repaired: 0, complete: true });
  });

  it('stops after the batch under way when the server closes', async () => {
    await brokenLibrary();
    let batches = 0;
    const run = await repairSmartAlbums(createAlbumsRepository(db()), {
      batch: 5,
      pause: async () => void batches++,
      stopping: () => batches >= 1,
    });
    expect(run).toMatchObject({ read: 5, complete: false });
    // The rest, for the tests after this one.
    await repairSmartAlbums(createAlbumsRepository(db()));
  });

  it('is right whatever analysis commits meanwhile', async () => {
    const { user } = await signUp(t.app);
    const bytes = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#7a3' } })
      .jpeg()
      .toBuffer();
    const queued: string[] = [];
    for (let i = 0; i < 12; i++) {
      const id = await insertStoredPhoto(t.app, user.id, `p${i}`, bytes);
      await db().insert(jobs).values({ kind: 'analyze-photo', userId: user.id, photoId: id });
      queued.push(id);
    }
    // Some photos of the same account analysed with their album writes lost, for the repair to do.
    const demo = (await db().select({ id: photos.id }).from(photos).where(eq(photos.userId, user.id)))
      .map((p) => p.id)
      .filter((id) => !queued.includes(id));
    await set(demo, { analyzed: true, category: 'animals', faceCount: 1 });
    let i = 0;
    const service = createAnalysisService(t.app.ctx, {
      analyze: async () => ({
        category: i++ % 2 ? 'animals' : 'food_drink',
        tags: [],
        description: '',
        faceCount: i % 3,
      }),
    });
    const repo = createAlbumsRepository(db());
    await Promise.all([service.worker.drain(), repairSmartAlbums(repo, { batch: 3 })]);
    // Whatever the order, every photo of the account is in step.
    expect(await repairSmartAlbums(repo)).toMatchObject({ repaired: 0 });
    const inAnimals = (await smartAlbumsOf(user.id)).animals ?? [];
    for (const id of demo) expect(inAnimals).toContain(id);
  });

  it('runs once at start, in the background, where the server runs workers', async () => {
    const broken = await brokenLibrary();
    let done!: (line: string) => void;
    const finished = new Promise<string>((resolve) => (done = resolve));
    const config = testConfig({ startWorkers: true });
    const app = await buildApp(config, {
      database: t.database,
      analysis: { analyze: async () => ({ category: 'animals', tags: [], description: '', faceCount: 0 }) },
      logStream: {
        write(line) {
          if (line.includes('smart album repair done')) done(line);
        },
      },
    });
    try {
      await app.ready();
      expect(JSON.parse(await finished)).toMatchObject({ repaired: 5, complete: true });
      expect(await smartAlbumsOf(broken.userId)).toEqual(broken.repaired);
    } finally {
      await app.close();
      config.cleanup();
    }
    // Every later start of the database reads no photo (it read them all: 7.6 s of background
    // database time per 100,000 photos on PGlite, at every start).
    const reads: string[] = [];
    const later = testConfig({ startWorkers: true });
    const again = await buildApp(later, {
      database: t.database,
      analysis: { analyze: async () => ({ category: 'animals', tags: [], description: '', faceCount: 0 }) },
      logStream: {
        write(line) {
          if (line.includes('smart album repair')) reads.push(line);
        },
      },
    });
    try {
      await again.ready();
    } finally {
      // Awaits a repair begun.
      await again.close();
      later.cleanup();
    }
    expect(reads).toEqual([]);
    expect(await createPasses(db()).due(SMART_ALBUM_REPAIR)).toBeNull();
  });

  /** The repository, counting its reads and where each began. */
  const countingRepo = () => {
    const repo = createAlbumsRepository(db());
    const reads: Array<string | null> = [];
    return {
      reads,
      repo: {
        ...repo,
        outOfStep: (after: string | null, limit?: number) => (reads.push(after), repo.outOfStep(after, limit)),
      },
    };
  };

  it('runs once per database: a pass cut short goes on from where it had come, and is done only once complete', async () => {
    const passes = createPasses(db());
    await db()
      .update(dataPasses)
      .set({ wanted: sql`${dataPasses.wanted} + 1` })
      .where(eq(dataPasses.name, SMART_ALBUM_REPAIR));
    const broken = await brokenLibrary();
    const first = countingRepo();
    let batches = 0;
    // A shutdown after the second read.
    const cut = await repairSmartAlbumsOnce(first.repo, passes, {
      batch: 4,
      pause: async () => void batches++,
      stopping: () => batches >= 2,
    });
    expect(cut).toMatchObject({ read: 8, complete: false });
    const resumed = await passes.due(SMART_ALBUM_REPAIR);
    expect(resumed?.resumeAfter).toEqual(expect.any(String));
    const next = countingRepo();
    const rest = await repairSmartAlbumsOnce(next.repo, passes, { batch: 4 });
    expect(rest).toMatchObject({ complete: true });
    // Not from the first photo again: after the last one the cut pass had read.
    expect(next.reads[0]).toBe(resumed!.resumeAfter);
    expect(cut!.read + rest!.read).toBe(
      (
        (await db()
          .select({ n: sql<number>`count(*)::int` })
          .from(photos)) as [{ n: number }]
      )[0].n,
    );
    expect(await smartAlbumsOf(broken.userId)).toEqual(broken.repaired);
    const done = countingRepo();
    expect(await repairSmartAlbumsOnce(done.repo, passes)).toBeNull();
    expect(done.reads).toEqual([]);
  });

  it('a pass with a batch that failed stays due, and records no progress past the failure', async () => {
    const passes = createPasses(db());
    await db()
      .update(dataPasses)
      .set({ wanted: sql`${dataPasses.wanted} + 1` })
      .where(eq(dataPasses.name, SMART_ALBUM_REPAIR));
    await brokenLibrary();
    const repo = createAlbumsRepository(db());
    const failing = {
      ...repo,
      repairSmartAlbums: async () => {
        throw new Error('album write failed');
      },
    };
    const run = await repairSmartAlbumsOnce(failing, passes, { batch: 4 });
    expect(run).toMatchObject({ repaired: 0, complete: false });
    expect(await passes.due(SMART_ALBUM_REPAIR)).not.toBeNull();
    // The next start goes over every photo the failures left, none skipped as passed.
    expect(await repairSmartAlbumsOnce(repo, passes)).toMatchObject({ repaired: 5, complete: true });
    expect(await repairSmartAlbumsOnce(repo, passes)).toBeNull();
  });
  it('a repair still waiting for its turn (another run holds it) does not hold the shutdown', async () => {
    // On PostgreSQL runs of `runAlone` take turns in the process: this one stands for a long
    // orphan sweep begun first.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let holding!: () => void;
    const holds = new Promise<void>((resolve) => (holding = resolve));
    const other = t.database.runAlone('test-long-run', async () => {
      holding();
      await held;
    });
    await holds;
    const config = testConfig({ startWorkers: true });
    const app = await buildApp(config, {
      database: t.database,
      analysis: { analyze: async () => ({ category: 'animals', tags: [], description: '', faceCount: 0 }) },
    });
    try {
      await app.ready();
      await app.close();
    } finally {
      release();
      await other;
      config.cleanup();
    }
  });
});
