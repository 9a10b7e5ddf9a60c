import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import net from 'node:net';
import sharp from 'sharp';
import { afterEach, expect, it, vi } from 'vitest';
import { buildApp } from '../../app';
import { jobs, photos } from '../../db/schema';
import { closeWithin } from '../../http/closing';
import { LocalBlobStore } from '../../storage/blob-store';
import {
  createTestApp,
  createTestDatabase,
  signUp,
  testConfig,
  type TestApp,
  type TestDatabase,
} from '../../test/harness';
import { postPhotos } from '../../test/multipart';
import { createAnalysisRepository } from './analysis.repository';
import { createAnalysisWorker } from './analysis.worker';

/**
 * A server shutting down (a deploy) while its worker is analysing: the jobs it holds when its
 * wait for them is over go back to the queue, so another process analyses them at once.
 */
let t: TestApp | undefined;
let listening: { app: FastifyInstance; database: TestDatabase; cleanup: () => void } | undefined;
afterEach(async () => {
  await t?.database.destroy();
  t?.config.cleanup();
  t = undefined;
  await listening?.app.close().catch(() => undefined);
  await listening?.database.destroy();
  listening?.cleanup();
  listening = undefined;
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

it('the wait for the photos in analysis starts with the close, not once the requests in flight are done', async () => {
  let analysing!: () => void;
  const started = new Promise<void>((resolve) => (analysing = resolve));
  const database = await createTestDatabase();
  const config = testConfig({ startWorkers: true });
  const app = await buildApp(config, {
    database,
    analysis: {
      analyze: () => {
        analysing();
        return new Promise(() => undefined);
      },
      closeWaitMs: 0,
      maxYieldMs: 0,
    },
  });
  listening = { app, database, cleanup: config.cleanup };
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { cookie, user } = await signUp(app);
  const bytes = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3c3' } })
    .jpeg()
    .toBuffer();
  expect((await postPhotos(app, cookie, [{ name: 'held.jpg', bytes }])).statusCode).toBe(201);
  await started;
  // A request still arriving holds the close in its grace (up to SHUTDOWN_GRACE_MS, here until cut).
  const body = JSON.stringify({ app: 'YouTube' });
  const socket = net.connect((app.server.address() as net.AddressInfo).port, '127.0.0.1');
  socket.on('error', () => undefined);
  socket.write(
    `POST /api/ad-breaks HTTP/1.1\r\nHost: localhost\r\nCookie: ${cookie}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
  );
  await vi.waitFor(() => expect(app.ctx.activity.quiet()).toBe(false));
  let cut!: () => void;
  const closed = closeWithin(app, { after: (_ms, fire) => ((cut = fire), () => undefined) });
  // Waited only after that grace, the photos' bound and the threads' own came on top of it (40 s
  // in all, past an orchestrator's 30 s). Now the jobs are given back while the request still runs.
  await vi.waitFor(
    async () => {
      const held = await database.db.select().from(jobs).where(eq(jobs.userId, user.id));
      expect(held.length).toBeGreaterThan(0);
      for (const job of held) expect(job).toMatchObject({ status: 'queued', attempts: 0, lockedUntil: null });
    },
    { timeout: 5_000 },
  );
  cut();
  await closed;
  socket.destroy();
});
