import { eq, sql } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobs, photos } from '../../db/schema';
import { createTestApp, signUp, testDbKind, type TestApp } from '../../test/harness';
import { insertStoredPhoto } from '../../test/stored-photo';
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
});
