import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, signUp, type TestApp } from '../test/harness.js';
import { fuzzUploads, hostileImages } from './fuzzers.js';
import { blobConsistency, recordFigure, rng } from './support.js';

/**
 * Promise 2 (files half), quick version: hostile image files (zero-byte, truncated, wrong magic,
 * polyglots, pixel bombs, huge dimensions, corrupt EXIF, byte flips) through `POST /api/photos`:
 * each is refused with a 4xx and a message or ingested correctly, and nothing is half-written
 * (rows and blob files agree, no temp files). The long suite sends 240 with other seeds.
 */
export async function runHostileUploads(t: TestApp, seed: number, count: number) {
  const { cookie } = await signUp(t.app);
  // Premium, so the free plan's 50-photo limit does not turn late files into 403s.
  await t.app.inject({ method: 'POST', url: '/api/subscription', headers: { cookie }, payload: { plan: 'yearly' } });
  const files = await hostileImages(rng(seed), count);
  const out = await fuzzUploads(t.app, cookie, files);
  const photos = (await t.app.inject({ url: '/api/photos', headers: { cookie } })).json() as Array<{
    id: string;
    isDemo: boolean;
    thumbnailUrl: string;
  }>;
  const uploaded = photos.filter((p) => !p.isDemo);
  // Every ingested photo is whole: its thumbnail is served.
  for (const p of uploaded.slice(0, 30)) {
    const th = await t.app.inject({ url: p.thumbnailUrl, headers: { cookie } });
    expect(th.statusCode, p.id).toBe(200);
    expect(th.rawPayload.length).toBeGreaterThan(0);
  }
  return { out, uploaded: uploaded.length, consistency: await blobConsistency(t.database.db, t.config.blobDir) };
}

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
