import { readFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { projectRoot } from '../../../lib/paths';
import { createVisionEngine } from './engine';
import { createVisionPool } from './pool';

const photos = [
  'reference-photos/people/kphotoalbum--jesper_2.jpg',
  'reference-photos/animals/darknet--horses.jpg',
  'reference-photos/vehicles_transport/opencv--pexels_double_decker_bus.jpg',
  'reference-photos/city_architecture/opencv--leuvenb.jpg',
].map((p) => path.join(projectRoot, 'assets', p));

describe('vision thread pool (real models in worker threads)', () => {
  it(
    'gives the same analysis as the engine in this thread, photos spread over two threads and batched',
    { timeout: 120_000 },
    async () => {
      const images = await Promise.all(photos.map((p) => readFile(p)));
      // Batches of up to 3: the photos that queue while the first two are in the threads go together.
      const pool = createVisionPool({ threads: 2, batch: 3 });
      try {
        const fromPool = await Promise.all(images.map((b) => pool.analyze(b)));
        const local = createVisionEngine();
        for (const [i, b] of images.entries()) {
          const r = await local.analyze(b);
          expect({
            file: photos[i],
            category: fromPool[i]!.category,
            tags: fromPool[i]!.tags,
            faces: fromPool[i]!.faceCount,
          }).toEqual({
            file: photos[i],
            category: r.category,
            tags: r.tags,
            faces: r.faceCount,
          });
        }
        expect(fromPool.map((r) => r.category)).toEqual([
          'people',
          'animals',
          'vehicles_transport',
          'city_architecture',
        ]);
        expect(pool.loadMs).toBeGreaterThan(0);

        // Closed while photos are in the threads: those finish (a thread terminated inside ONNX
        // Runtime's native run aborts the whole process), what is still queued is refused.
        const closing = images.map((b) =>
          pool.analyze(b).then(
            (r) => r.category,
            (e: Error) => e.message,
          ),
        );
        while (pool.running === 0) await new Promise((r) => setImmediate(r));
        await pool.close();
        const outcomes = await Promise.all(closing);
        outcomes.forEach((o, i) => expect([fromPool[i]!.category, 'vision pool is closed']).toContain(o));
        expect(outcomes.filter((o) => o !== 'vision pool is closed').length).toBeGreaterThan(0);
      } finally {
        await pool.close();
      }
      await expect(pool.analyze(images[0]!)).rejects.toThrow(/closed/);
    },
  );

  it('rejects (never hangs) when a thread cannot load its models, and says why', { timeout: 180_000 }, async () => {
    const pool = createVisionPool({ threads: 1, referencePath: path.join(projectRoot, 'no-such-reference.json') });
    try {
      const image = await readFile(photos[0]!);
      await expect(pool.analyze(image)).rejects.toThrow(/no-such-reference\.json/);
      // The next photo tries again instead of failing on a poisoned engine.
      await expect(pool.analyze(image)).rejects.toThrow(/no-such-reference\.json/);
    } finally {
      await pool.close();
    }
  });

  it(
    'keeps the configured libvips thread count, which loading sharp in a thread resets process-wide',
    { timeout: 180_000 },
    async () => {
      const before = sharp.concurrency();
      // Not sharp's default anywhere this runs (1 on glibc without jemalloc, else the core count).
      sharp.concurrency(7);
      // A thread whose models cannot load: it starts, loads sharp with the engine, and answers at once.
      const pool = createVisionPool({
        threads: 1,
        imageThreads: 7,
        referencePath: path.join(projectRoot, 'no-such-reference.json'),
      });
      try {
        await expect(pool.analyze(await readFile(photos[0]!))).rejects.toThrow(/no-such-reference\.json/);
        // Every upload's derivatives after the first analysis ran on sharp's default instead.
        expect(sharp.concurrency()).toBe(7);
      } finally {
        await pool.close();
        sharp.concurrency(before);
      }
    },
  );

  it(
    'a thread that dies fails only its photo, with a reason, and the next photo is tried on a fresh thread (no hang)',
    { timeout: 180_000 },
    async () => {
      // 16 MB of heap cannot even hold the models: each thread dies while loading.
      const pool = createVisionPool({ threads: 1, resourceLimits: { maxOldGenerationSizeMb: 16 } });
      try {
        const image = await readFile(photos[0]!);
        await expect(pool.analyze(image)).rejects.toThrow(/vision thread stopped/);
        await expect(pool.analyze(image)).rejects.toThrow(/vision thread stopped/);
      } finally {
        await pool.close();
      }
      // A batch on a thread that dies: every photo in it fails with the reason, none hangs.
      const batched = createVisionPool({ threads: 1, batch: 3, resourceLimits: { maxOldGenerationSizeMb: 16 } });
      try {
        const image = await readFile(photos[1]!);
        const settled = await Promise.allSettled([0, 1, 2].map(() => batched.analyze(image)));
        expect(settled.map((r) => (r.status === 'rejected' ? String(r.reason) : 'ok'))).toEqual([
          expect.stringMatching(/vision thread stopped/),
          expect.stringMatching(/vision thread stopped/),
          expect.stringMatching(/vision thread stopped/),
        ]);
      } finally {
        await batched.close();
      }
    },
  );

  it('refuses a bad thread count', () => {
    expect(() => createVisionPool({ threads: 0 })).toThrow(/positive integer/);
    expect(() => createVisionPool({ threads: 1, batch: 0 })).toThrow(/batch must be a positive integer/);
  });
});
