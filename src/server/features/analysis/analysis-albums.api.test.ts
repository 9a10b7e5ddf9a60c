import { eq, sql } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobs, photos } from '../../db/schema';
import { createTestApp, signUp, testDbKind, type TestApp } from '../../test/harness';
import { insertStoredPhoto } from '../../test/stored-photo';
import { createAlbumsRepository } from '../albums/albums.repository';
import { repairSmartAlbumsOnce } from '../albums/albums.service';
import { createPasses } from '../../db/passes';
import { createAnalysisService } from './analysis.service';
import type { PhotoAnalyzer } from './analysis.worker';

/** Every photo is an animal: the run's one photo makes the Animals smart album. */
const animal: PhotoAnalyzer = async () => ({ category: 'animals', tags: ['cat'], description: 'A cat', faceCount: 0 });

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

/** One uploaded photo (a row and its file), queued for analysis as an upload queues it. */
async function queuedPhoto(app: TestApp['app'], userId: string): Promise<string> {
  const bytes = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#aa7733' } })
    .jpeg()
    .toBuffer();
  const id = await insertStoredPhoto(app, userId, 'cat', bytes);
  await app.ctx.db.insert(jobs).values({ kind: 'analyze-photo', userId, photoId: id });
  return id;
}

describe(`an analysis result and its smart album (${testDbKind})`, () => {
  // Written apart, a photo was analysed and its job done before its album write; when that write
  // failed (or the process stopped between), the retry found the photo analysed and closed the
  // job: the status said done and the photo was never in its smart album.
  it('commit together: an album write that fails leaves the photo to be analysed again', async () => {
    const { cookie, user } = await signUp(t.app);
    const id = await queuedPhoto(t.app, user.id);
    // The first membership written for this user fails once (a sequence is not rolled back).
    await t.database.db.execute(
      sql.raw(`
      create sequence album_write_failures;
      create function fail_first_album_write() returns trigger language plpgsql as $$
      begin
        if nextval('album_write_failures') = 1 then raise exception 'album write failed'; end if;
        return new;
      end $$;
      create trigger fail_first_album_write before insert on album_photos
        for each row execute function fail_first_album_write();`),
    );
    const service = createAnalysisService(t.app.ctx, { analyze: animal });
    await service.worker.drain();
    const [after] = await t.app.ctx.db.select().from(photos).where(eq(photos.id, id));
    expect(after!.analyzed).toBe(false);

    // The retry, once its delay is over.
    await t.app.ctx.db
      .update(jobs)
      .set({ runAfter: sql`now()` })
      .where(eq(jobs.photoId, id));
    await service.worker.drain();
    const status = await t.app.inject({ method: 'GET', url: '/api/photos/analysis-status', headers: { cookie } });
    expect(status.json()).toMatchObject({ analyzed: 1, pending: 0 });
    const list = await t.app.inject({ method: 'GET', url: '/api/albums', headers: { cookie } });
    expect(list.json()).toEqual([expect.objectContaining({ name: 'Animals', isSmartAlbum: true, photoCount: 1 })]);
  });

  /** Every membership write fails, of rows or none (a lasting fault of the album write), until `albumWritesWork`. */
  const albumWritesFail = () =>
    t.database.db.execute(
      sql.raw(`
      create or replace function fail_every_album_write() returns trigger language plpgsql as $$
      begin raise exception 'album write failed'; end $$;
      create trigger fail_every_album_write before insert on album_photos
        for each statement execute function fail_every_album_write();`),
    );
  const albumWritesWork = () => t.database.db.execute(sql.raw(`drop trigger fail_every_album_write on album_photos`));

  // The give-up's transaction ran the same album write and failed with it: the job stayed
  // 'running' under its 5-minute lock, was taken again when it ran out, and so on for as long as
  // the fault lasted, never marked failed.
  it('a photo given up on is marked failed even when its album write keeps failing', async () => {
    const { user } = await signUp(t.app);
    const id = await queuedPhoto(t.app, user.id);
    await albumWritesFail();
    try {
      const broken = createAnalysisService(t.app.ctx, {
        analyze: async () => {
          throw new Error('decoder crashed');
        },
      });
      // The last attempt: the give-up's sync writes no row here ('uncategorized' is in no smart
      // album), but its statements run, and fail.
      await t.app.ctx.db.update(jobs).set({ attempts: 2 }).where(eq(jobs.photoId, id));
      await broken.worker.drain();
    } finally {
      await albumWritesWork();
    }
    const [job] = await t.app.ctx.db.select().from(jobs).where(eq(jobs.photoId, id));
    expect(job).toMatchObject({ status: 'failed', lockedUntil: null, lastError: 'decoder crashed' });
    const [after] = await t.app.ctx.db.select().from(photos).where(eq(photos.id, id));
    expect(after).toMatchObject({ analyzed: true, category: 'uncategorized', analysisError: 'decoder crashed' });
  });

  it("on a photo's last attempt, a result whose album write fails is kept, and the next start's repair adds the album", async () => {
    const passes = createPasses(t.app.ctx.db);
    const repo = createAlbumsRepository(t.app.ctx.db);
    // The repair has run on this database: not due, nothing read at a start.
    await repairSmartAlbumsOnce(repo, passes);
    expect(await repairSmartAlbumsOnce(repo, passes)).toBeNull();
    const { cookie, user } = await signUp(t.app);
    const id = await queuedPhoto(t.app, user.id);
    await t.app.ctx.db.update(jobs).set({ attempts: 2 }).where(eq(jobs.photoId, id));
    await albumWritesFail();
    try {
      await createAnalysisService(t.app.ctx, { analyze: animal }).worker.drain();
    } finally {
      await albumWritesWork();
    }
    const [job] = await t.app.ctx.db.select().from(jobs).where(eq(jobs.photoId, id));
    expect(job).toMatchObject({ status: 'done', lockedUntil: null });
    const [after] = await t.app.ctx.db.select().from(photos).where(eq(photos.id, id));
    // Not given up as 'uncategorized' for the album write: the analysis itself succeeded.
    expect(after).toMatchObject({ analyzed: true, category: 'animals', analysisError: null });
    expect((await t.app.inject({ method: 'GET', url: '/api/albums', headers: { cookie } })).json()).toEqual([]);

    // Due again: the photo left out is brought in step by the next start's pass, once.
    expect(await repairSmartAlbumsOnce(repo, passes)).toMatchObject({ repaired: 1, complete: true });
    expect(await repairSmartAlbumsOnce(repo, passes)).toBeNull();
    const list = await t.app.inject({ method: 'GET', url: '/api/albums', headers: { cookie } });
    expect(list.json()).toEqual([expect.objectContaining({ name: 'Animals', isSmartAlbum: true, photoCount: 1 })]);
  });
});
