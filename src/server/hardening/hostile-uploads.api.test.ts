import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test/harness';
import { runHostileUploads } from './hostile-uploads';
import { recordFigure } from './support';

/**
 * Bad input, the files half, quick version: hostile image files (zero-byte, truncated, wrong magic,
 * polyglots, pixel bombs, huge dimensions, corrupt EXIF, byte flips) through `POST /api/photos`:
 * each is refused with a 4xx and a message or ingested correctly, and nothing is half-written
 * (rows and blob files agree, no temp files). The long suite sends 240 with other seeds.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ maxUploadBytes: 4 * 1024 * 1024 });
});
afterAll(async () => {
  await t?.close();
});

describe('hostile image files through upload (seeded)', () => {
  it('all refused with a 4xx and a message or ingested whole; rows and blobs agree', async () => {
    const { out, uploaded, consistency } = await runHostileUploads(t, 77, 72);
    await recordFigure('2 bad input', 'hostile image files (quick)', out.files);
    expect(out.failures).toEqual([]);
    expect(out.refused).toBeGreaterThan(40);
    expect(out.accepted).toBe(uploaded);
    expect(consistency.missing).toEqual([]);
    expect(consistency.orphans).toEqual([]);
    expect(consistency.temp).toEqual([]);
  }, 120_000);
});
