import sharp from 'sharp';
import { expect, it } from 'vitest';
import { threadsLeftRunning } from '../../../lib/worker-threads';
import { createVisionPool } from './pool';

/**
 * Closing the vision threads at a shutdown while one is still inside a very slow run (a stand-in
 * thread that blocks as ONNX Runtime's native run does, test/slow-vision-thread.ts).
 */
it('a thread still inside its run at the close is left to finish, not terminated; what waited is refused', async () => {
  const pool = createVisionPool({
    threads: 1,
    entry: { source: '../../../test/slow-vision-thread.ts', bundled: 'unused.js' },
  });
  const image = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#345' } })
    .jpeg()
    .toBuffer();
  const running = pool.analyze(image).catch((err: Error) => err.message);
  while (pool.running === 0) await new Promise((resolve) => setImmediate(resolve));
  // The shutdown begins: the next photo is not handed to the thread when its run ends.
  pool.stopTaking();
  const waiting = pool.analyze(image).catch((err: Error) => err.message);
  const before = threadsLeftRunning();
  // No wait left (the analysis worker has given the jobs back): terminated mid-run, a thread
  // inside ONNX Runtime aborted the process ('Napi::Error', exit 134).
  await pool.close({ waitMs: 0 });
  expect(threadsLeftRunning()).toBe(before + 1);
  expect(await running).toBe('vision pool is closed');
  expect(await waiting).toBe('vision pool is closed');
  await expect(pool.analyze(image)).rejects.toThrow(/closed/);
});
