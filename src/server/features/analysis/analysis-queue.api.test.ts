import { and, eq } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { albumPhotos, albums, jobs, photos } from '../../db/schema';
import { createTestApp, signUp, type TestApp } from '../../test/harness';
import { insertStoredPhoto } from '../../test/stored-photo';
import { syncSmartAlbumsIn } from '../albums/albums.repository';
import { createAnalysisRepository } from './analysis.repository';
import { createAnalysisWorker, type PhotoAnalyzer } from './analysis.worker';

/**
 * The queue with a stand-in analyzer (the real models are exercised by vision/accuracy.test.ts):
 * it really decodes the image with sharp, so corrupt bytes fail as they would in production,
 * and names the category after the image's colour, so a result that lands on the wrong photo shows.
 */
const colourAnalyzer: PhotoAnalyzer = async (image) => {
  const { channels } = await sharp(image).stats();
  const [r, , b] = channels.map((c) => c.mean);
  const category = r > b ? 'food_drink' : 'vehicles_transport';
  return {
    category,
    tags: [r > b ? 'red' : 'blue'],
    description: `A ${r > b ? 'red' : 'blue'} test photo`,
    faceCount: 0,
  };
};

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

async function addPhotos(userId: string, colour: string, n: number, name = colour): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    // Distinct bytes per photo (a different size each), so every blob and key is unique.
    const bytes = await sharp({ create: { width: 40 + i, height: 30, channels: 3, background: colour } })
      .jpeg()
      .toBuffer();
    ids.push(await insertPhoto(userId, `${name}-${i}`, bytes));
  }
  return ids;
}

function insertPhoto(userId: string, name: string, bytes: Buffer): Promise<string> {
  return insertStoredPhoto(t.app, userId, name, bytes);
}

function worker(analyze: PhotoAnalyzer, extra: Partial<Parameters<typeof createAnalysisWorker>[0]> = {}) {
  return createAnalysisWorker({
    repo: createAnalysisRepository(t.app.ctx.db),
    blobs: t.app.ctx.blobs,
    analyze,
    onSettled: (tx, userId, photoId) => syncSmartAlbumsIn(tx, userId, [photoId]),
    retryDelayMs: 0,
    ...extra,
  });
}

const rowsOf = (userId: string) => t.app.ctx.db.select().from(photos).where(eq(photos.userId, userId));

describe('analysis queue', () => {
  it('resumes after a restart: a job left running by a dead worker is taken again', async () => {
    const { user } = await signUp(t.app);
    await addPhotos(user.id, '#dd2222', 4);
    const repo = createAnalysisRepository(t.app.ctx.db);
    const queued = await repo.enqueueUnanalysed(user.id);
    expect(queued).toBe(14); // 10 demo photos + 4

    // First "process": finishes three photos, then dies in the middle of the fourth.
    let done = 0;
    let dying!: () => void;
    const died = new Promise<void>((r) => (dying = r));
    const first = worker(
      async (img) => {
        if (done === 3) {
          dying();
          return new Promise(() => undefined); // never finishes: the process is gone
        }
        done++;
        return colourAnalyzer(img);
      },
      { concurrency: 1, lockMs: 0 },
    );
    void first.drain();
    await died;
    await first.stop({ abandon: true });
    expect((await repo.status(user.id)).analyzed).toBe(3);

    // Second "process" after the restart: claims the stale running job and everything still queued.
    await worker(colourAnalyzer).drain();
    const status = await repo.status(user.id);
    expect(status).toEqual({ total: 14, analyzed: 14, pending: 0 });
    const userJobs = await t.app.ctx.db.select().from(jobs).where(eq(jobs.userId, user.id));
    expect(userJobs.every((j) => j.status === 'done')).toBe(true);
    expect(userJobs.filter((j) => j.attempts === 2)).toHaveLength(1);
  });

  it('a corrupt image ends uncategorized with its error after bounded retries; the rest finish', async () => {
    const { user } = await signUp(t.app);
    const good = await addPhotos(user.id, '#2222dd', 3);
    const bad = await insertPhoto(user.id, 'corrupt', Buffer.from('this is not an image at all'));
    const repo = createAnalysisRepository(t.app.ctx.db);
    await repo.enqueueUnanalysed(user.id);

    let calls = 0;
    // What the worker reports besides the expected failures, for a failure of this test to name
    // its cause. It failed twice in CI on PostgreSQL with the photo left unanalysed: drain() ended
    // while the job, queued again for its retry, was claimable (analysis.worker.test.ts).
    const reported: string[] = [];
    await worker(
      async (img) => {
        calls++;
        return colourAnalyzer(img);
      },
      {
        maxAttempts: 3,
        log: (msg, err) => {
          if (!/^photo analysis failed/.test(msg))
            reported.push(`${msg}: ${err instanceof Error ? err.message : String(err)}`);
        },
      },
    ).drain();

    const rows = await rowsOf(user.id);
    const corrupt = rows.find((r) => r.id === bad)!;
    const [corruptJob] = await t.app.ctx.db.select().from(jobs).where(eq(jobs.photoId, bad));
    expect(corrupt, JSON.stringify({ reported, corruptJob })).toMatchObject({
      analyzed: true,
      category: 'uncategorized',
    });
    expect(corrupt.analysisError).toMatch(/unsupported image format|Input buffer/i);
    for (const id of good)
      expect(rows.find((r) => r.id === id)).toMatchObject({ analyzed: true, category: 'vehicles_transport' });
    const [job] = await t.app.ctx.db
      .select()
      .from(jobs)
      .where(and(eq(jobs.photoId, bad)));
    expect(job).toMatchObject({ status: 'failed', attempts: 3 });
    expect(calls).toBe(10 + 3 + 3); // each good photo once, the corrupt one three times
    expect(await repo.status(user.id)).toMatchObject({ analyzed: 14, pending: 0 });
  });

  it("never mixes two users' jobs: results and smart albums stay with their owner", async () => {
    const a = await signUp(t.app);
    const b = await signUp(t.app);
    const aIds = await addPhotos(a.user.id, '#ee1111', 3, 'a');
    const bIds = await addPhotos(b.user.id, '#1111ee', 3, 'b');
    const repo = createAnalysisRepository(t.app.ctx.db);
    await repo.enqueueUnanalysed(a.user.id);
    await repo.enqueueUnanalysed(b.user.id);
    await worker(colourAnalyzer, { concurrency: 3 }).drain();

    const aRows = await rowsOf(a.user.id);
    const bRows = await rowsOf(b.user.id);
    for (const id of aIds) expect(aRows.find((r) => r.id === id)?.category).toBe('food_drink');
    for (const id of bIds) expect(bRows.find((r) => r.id === id)?.category).toBe('vehicles_transport');

    const members = await t.app.ctx.db
      .select({ owner: albums.userId, photoOwner: photos.userId, smart: albums.isSmartAlbum })
      .from(albumPhotos)
      .innerJoin(albums, eq(albums.id, albumPhotos.albumId))
      .innerJoin(photos, eq(photos.id, albumPhotos.photoId));
    expect(members.length).toBeGreaterThan(0);
    for (const m of members) expect(m.owner).toBe(m.photoOwner);

    // Smart albums through the API: one per non-empty category, flagged isSmartAlbum.
    const res = await t.app.inject({ method: 'GET', url: '/api/albums', headers: { cookie: b.cookie } });
    const list = res.json() as Array<{ name: string; isSmartAlbum: boolean; photoCount: number }>;
    expect(list).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'Vehicles & Transport', isSmartAlbum: true })]),
    );
    const vehicles = bRows.filter((r) => r.category === 'vehicles_transport').map((r) => r.id);
    expect(list.find((x) => x.name === 'Vehicles & Transport')?.photoCount).toBe(vehicles.length);

    // Deleting every photo of that category removes its smart album.
    for (const id of vehicles) {
      const del = await t.app.inject({ method: 'DELETE', url: `/api/photos/${id}`, headers: { cookie: b.cookie } });
      expect(del.statusCode).toBeLessThan(300);
    }
    const after = (
      await t.app.inject({ method: 'GET', url: '/api/albums', headers: { cookie: b.cookie } })
    ).json() as Array<{
      name: string;
    }>;
    expect(after.find((x) => x.name === 'Vehicles & Transport')).toBeUndefined();
  });

  it('queues a newly uploaded photo automatically (the demo library waits for Analyze Photos)', async () => {
    const { user, cookie } = await signUp(t.app);
    const repo = createAnalysisRepository(t.app.ctx.db);
    expect(await repo.status(user.id)).toEqual({ total: 10, analyzed: 0, pending: 0 });
    const bytes = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#cc3333' } })
      .jpeg()
      .toBuffer();
    const boundary = '----eyevu-analysis-test';
    const payload = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="photos"; filename="new.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
      ),
      bytes,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const up = await t.app.inject({
      method: 'POST',
      url: '/api/photos',
      headers: { cookie, 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload,
    });
    expect(up.statusCode).toBe(201);
    const uploadedId = (up.json() as { results: Array<{ photo: { id: string } }> }).results[0].photo.id;
    expect(await repo.status(user.id)).toEqual({ total: 11, analyzed: 0, pending: 1 });

    await worker(colourAnalyzer).drain();
    const [row] = (await rowsOf(user.id)).filter((r) => r.id === uploadedId);
    expect(row).toMatchObject({ analyzed: true, category: 'food_drink' });
  });

  it('queues at start an upload a crash left between its row and its job, and nothing twice', async () => {
    const { user } = await signUp(t.app);
    // addPhotos inserts rows only: what a process killed right after an upload's commit leaves.
    const [stranded] = await addPhotos(user.id, '#22aa44', 1, 'stranded');
    const repo = createAnalysisRepository(t.app.ctx.db);
    const pendingFor = async () =>
      (await t.app.ctx.db.select().from(jobs).where(eq(jobs.userId, user.id))).map((j) => j.photoId);

    expect(await repo.enqueueStranded()).toBeGreaterThanOrEqual(1);
    // The photo is queued; the demo library still waits for Analyze Photos.
    expect(await pendingFor()).toEqual([stranded]);
    // Again (every process does it at its start): nothing more.
    await repo.enqueueStranded();
    expect(await pendingFor()).toEqual([stranded]);
    await worker(colourAnalyzer).drain();
    const row = (await rowsOf(user.id)).find((p) => p.id === stranded)!;
    expect(row.analyzed).toBe(true);
  });

  it('analyze-all queues only unanalysed photos and reports progress', async () => {
    const { cookie } = await signUp(t.app);
    const first = await t.app.inject({ method: 'POST', url: '/api/photos/analyze-all', headers: { cookie } });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ queued: 10, status: { total: 10, analyzed: 0, pending: 10 } });
    const again = await t.app.inject({ method: 'POST', url: '/api/photos/analyze-all', headers: { cookie } });
    expect(again.json()).toMatchObject({ queued: 0, status: { pending: 10 } });
    const status = await t.app.inject({ method: 'GET', url: '/api/photos/analysis-status', headers: { cookie } });
    expect(status.json()).toEqual({ total: 10, analyzed: 0, pending: 10 });
    const anon = await t.app.inject({ method: 'GET', url: '/api/photos/analysis-status' });
    expect(anon.statusCode).toBe(401);
  });
});

describe('analysis holding back for uploads', () => {
  /** A worker whose analyzer notes the state at each call, and that says when it first looked at `busy`. */
  function watched(busy: () => boolean, extra: Partial<Parameters<typeof createAnalysisWorker>[0]> = {}) {
    const seen: boolean[] = [];
    let looked!: () => void;
    const firstLook = new Promise<void>((r) => (looked = r));
    let called!: () => void;
    const firstCall = new Promise<void>((r) => (called = r));
    const w = worker(
      async (img) => {
        seen.push(busy());
        called();
        return colourAnalyzer(img);
      },
      {
        yieldWhile: () => {
          looked();
          return busy();
        },
        pollMs: 60_000,
        ...extra,
      },
    );
    return { w, seen, firstLook, firstCall };
  }

  it('claims no job while an upload is under way, and claims as soon as it ends', async () => {
    const { user } = await signUp(t.app);
    const [id] = await addPhotos(user.id, '#dd2222', 1, 'held');
    await createAnalysisRepository(t.app.ctx.db).enqueuePhoto(user.id, id!);
    let busy = true;
    const { w, seen, firstLook, firstCall } = watched(() => busy, { maxYieldMs: 60_000 });
    w.start();
    // Either the worker looked and held back, or (without holding back) it analysed at once.
    await Promise.race([firstLook, firstCall]);
    busy = false;
    w.notify();
    await firstCall;
    await w.stop();
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((wasBusy) => !wasBusy)).toBe(true);
  });

  it('holds back at most maxYieldMs, so a stream of uploads never starves analysis', async () => {
    const { user } = await signUp(t.app);
    const [id] = await addPhotos(user.id, '#2222dd', 1, 'bounded');
    await createAnalysisRepository(t.app.ctx.db).enqueuePhoto(user.id, id!);
    let clock = 0;
    const settledAt: number[] = [];
    const { w, firstLook, firstCall } = watched(() => true, {
      maxYieldMs: 1000,
      now: () => clock,
      onSettled: async () => void settledAt.push(clock),
    });
    w.start();
    await firstLook;
    clock = 1000;
    w.notify();
    await firstCall;
    await w.stop();
    expect(settledAt.length).toBeGreaterThan(0);
    expect(Math.min(...settledAt)).toBeGreaterThanOrEqual(1000);
  });
});
