import { eq } from 'drizzle-orm';
import sharp from 'sharp';
import { afterEach, expect, it } from 'vitest';
import { jobs, photos } from '../../db/schema';
import { LocalBlobStore } from '../../storage/blob-store';
import { createTestApp, signUp, type TestApp } from '../../test/harness';
import { postPhotos } from '../../test/multipart';
import { createAnalysisRepository } from './analysis.repository';
import { createAnalysisWorker } from './analysis.worker';

/**
 * A server shutting down (a deploy) while its worker is analysing: the jobs it holds when its
 * wait for them is over go back to the queue, so another process analyses them at once.
 */
let t: TestApp | undefined;
afterEach(async () => {
  await t?.database.destroy();
  t?.config.cleanup();
  t = undefined;
});

it('jobs still in analysis when the close stops waiting are given back: claimable at once, no attempt spent', async () => {
  let analysing!: () => void;
  const started = new Promise<void>((resolve) => (analysing = resolve));
  // A photo whose analysis outlasts the close's wait (here none): its threads stop under it.
  t = await createTestApp(
    { startWorkers: true },
    {
      analysis: {
        analyze: () => {
          analysing();
          return new Promise(() => undefined);
        },
        closeWaitMs: 0,
      },
    },
  );
  const { cookie, user } = await signUp(t.app);
  const bytes = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#c33' } })
    .jpeg()
    .toBuffer();
  const up = await postPhotos(t.app, cookie, [{ name: 'held.jpg', bytes }]);
  expect(up.statusCode, up.body).toBe(201);
  const photoId = up.json().results[0].photo.id as string;
  await started;
  await t.app.close();

  const db = t.database.db;
  const [job] = await db.select().from(jobs).where(eq(jobs.photoId, photoId));
  expect(job).toMatchObject({ status: 'queued', attempts: 0, lockedUntil: null });

  // Another process's worker takes it now, not when a 5-minute lock runs out.
  await createAnalysisWorker({
    repo: createAnalysisRepository(db),
    blobs: new LocalBlobStore(t.config.blobDir),
    analyze: async () => ({ category: 'food_drink', tags: ['red'], description: 'A red photo', faceCount: 0 }),
  }).drain();
  const [photo] = await db.select().from(photos).where(eq(photos.id, photoId));
  expect(photo).toMatchObject({ userId: user.id, analyzed: true, category: 'food_drink', analysisError: null });
});
