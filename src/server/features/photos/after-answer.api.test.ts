import { sql } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobs } from '../../db/schema';
import { createServerActivity, type ServerActivity } from '../../lib/server-activity';
import { createTestApp, signUp, type TestApp } from '../../test/harness';
import { photoUpload } from '../../test/multipart';
import type { PhotoAnalyzer } from '../analysis/analysis.worker';

const jpeg = (colour: string) =>
  sharp({ create: { width: 64, height: 48, channels: 3, background: colour } })
    .jpeg()
    .toBuffer();

async function upload(t: TestApp, cookie: string, name: string, colour: string): Promise<string> {
  const { payload, headers } = photoUpload([{ name, bytes: await jpeg(colour) }]);
  const res = await t.app.inject({ method: 'POST', url: '/api/photos', headers: { ...headers, cookie }, payload });
  expect(res.statusCode, res.body).toBe(201);
  return (res.json() as { results: Array<{ photo: { id: string } }> }).results[0]!.photo.id;
}

/** The app's real activity, except that work waiting for a quiet server is held until the test lets it go. */
function holding(real: ServerActivity = createServerActivity()) {
  const held: Array<() => void> = [];
  const activity: ServerActivity = {
    get requests() {
      return real.requests;
    },
    get uploads() {
      return real.uploads;
    },
    trackRequest: (response) => real.trackRequest(response),
    enterUpload: () => real.enterUpload(),
    quiet: () => real.quiet(),
    quietIn: () => real.quietIn(),
    onQuiet: (listener) => real.onQuiet(listener),
    whenQuiet: (work) => void held.push(work),
    close: () => {
      for (const work of held.splice(0)) work();
      real.close();
    },
  };
  return { activity, held };
}

const fingerprints = async (t: TestApp, photoId: string) =>
  (
    (await t.database.db.execute(sql`select 1 from photo_fingerprints where photo_id = ${photoId}`)) as unknown as {
      rows: unknown[];
    }
  ).rows.length;

/**
 * One app for every test here (booting one costs seconds on a loaded machine): its worker runs,
 * with an analyzer double, and its activity is the real one except that the test says when the
 * server is busy and holds the work waiting for a quiet moment.
 */
let t: TestApp;
let busy = true;
const { activity, held } = holding();
const woken: Array<() => void> = [];
const looks: Array<() => void> = [];
activity.quiet = () => {
  for (const look of looks.splice(0)) look();
  return !busy;
};
activity.onQuiet = (listener) => {
  woken.push(listener);
  return () => undefined;
};
const nextLook = () => new Promise<void>((resolve) => looks.push(resolve));
const analysed: boolean[] = [];
let onAnalysed = () => undefined as void;
const analyze: PhotoAnalyzer = async () => {
  analysed.push(busy);
  onAnalysed();
  return { category: 'food_drink', tags: [], description: 'A test photo', faceCount: 0 };
};
let closed = false;

beforeAll(async () => {
  t = await createTestApp({ startWorkers: true }, { activity, analysis: { analyze, maxYieldMs: 600_000 } });
});
afterAll(async () => {
  if (!closed) await t?.app.close();
  await t?.database.destroy();
  t?.config.cleanup();
});

const jobStatus = async (photoId: string) =>
  (
    (await t.database.db.execute(sql`select status from ${jobs} where photo_id = ${photoId}`)) as unknown as {
      rows: Array<{ status: string }>;
    }
  ).rows.map((r) => r.status);

describe('requests in flight', () => {
  it('counts every request until its response is done, first pages answered from memory included', async () => {
    const { cookie } = await signUp(t.app);
    await upload(t, cookie, 'counted.jpg', '#b03a7a');
    const page = () => t.app.inject({ method: 'GET', url: '/api/photos?limit=20', headers: { cookie } });
    expect((await page()).statusCode).toBe(200);
    // The second is written at once from the cached page, outside the route's handler.
    expect((await page()).statusCode).toBe(200);
    await new Promise((resolve) => setImmediate(resolve)); // the responses' 'close'
    expect(t.app.ctx.activity.requests).toBe(0);
    expect(t.app.ctx.activity.uploads).toBe(0);
  });
});

describe('the analysis worker on a busy server', () => {
  it('claims nothing while the server is busy, and claims as soon as it turns quiet', async () => {
    const { cookie } = await signUp(t.app);
    const id = await upload(t, cookie, 'held.jpg', '#7ab03a');
    const first = new Promise<void>((resolve) => (onAnalysed = resolve));
    // The worker looks again (its re-check) and holds back, or (without holding back) analyses.
    await Promise.race([nextLook(), first]);
    await Promise.race([nextLook(), first]);
    expect(analysed).toEqual([]);
    expect(await jobStatus(id)).toEqual(['queued']);
    busy = false;
    // Turning quiet wakes it (the listener the analysis service registered).
    expect(woken).toHaveLength(1);
    for (const wake of woken) wake();
    await first;
    expect(analysed[0]).toBe(false);
    busy = true;
  });
});

describe("an upload's background work", () => {
  it('waits for a quiet server after the answer: the fingerprint and the analysis wake-up', async () => {
    const { cookie } = await signUp(t.app);
    held.splice(0);
    const id = await upload(t, cookie, 'quiet.jpg', '#3a7ab0');
    // Answered; its two pieces of background work wait for a quiet moment, none has run.
    expect(held).toHaveLength(2);
    expect(await fingerprints(t, id)).toBe(0);
    // Queued durably before the answer all the same (and held back: the server is busy).
    expect(await jobStatus(id)).toEqual(['queued']);
    // Closing runs what still waits (the fingerprint is written before the database closes).
    closed = true;
    await t.app.close();
    expect(held).toHaveLength(0);
    expect(await fingerprints(t, id)).toBe(1);
  });
});
