import { describe, expect, it } from 'vitest';
import { startStripeDouble } from '../features/payments/stripe-test-double';
import { createTestApp, signUp } from '../test/harness';
import { fuzzJson } from './fuzz-json';
import { runHostileUploads } from './hostile-uploads';
import { runCrashScenario } from './proc/crash-scenario';
import { printLoad, runLoad } from './proc/load-scenario';
import { startOwnCluster } from './proc/pg';
import { jpeg, multipart, recordFigure, rng, stripeConfig } from './support';

/** A load run against the real server on a PostgreSQL cluster of its own, removed afterwards. */
async function loadOnOwnCluster(opts: Omit<Parameters<typeof runLoad>[0], 'env'>) {
  const cluster = await startOwnCluster();
  try {
    return await runLoad({ ...opts, env: { DATABASE_URL: cluster.url } });
  } finally {
    await cluster.destroy();
  }
}

/**
 * The long versions (`npm run test:hardening`, files run one after another so the load figures
 * are not disturbed): 3,000 fuzzed requests and 240 hostile files over several seeds, 50 uploads
 * and 50 analysis jobs under 6 SIGKILLs, and 200 users for 60 s
 * (then a closed-loop saturation run, figures only).
 */
describe('long hardening suite', () => {
  it('JSON fuzzer: 3,000 requests over 3 seeds, 0 x 5xx, every 4xx with a message', async () => {
    const stripe = await startStripeDouble();
    const t = await createTestApp(stripeConfig(stripe.api));
    try {
      const { cookie } = await signUp(t.app);
      const m = multipart([{ name: 'mine.jpg', bytes: await jpeg(7) }]);
      const up = await t.app.inject({
        method: 'POST',
        url: '/api/photos',
        headers: { cookie, ...m.headers },
        payload: m.payload,
      });
      const ownId = up.json().results[0].photo.id as string;
      let requests = 0;
      const failures: string[] = [];
      const byStatus: Record<string, number> = {};
      for (const seed of [101, 202, 303]) {
        const out = await fuzzJson(t.app, { r: rng(seed), requests: 1000, cookie, ownId });
        requests += out.requests;
        failures.push(...out.failures);
        for (const [k, v] of Object.entries(out.byStatus)) byStatus[k] = (byStatus[k] ?? 0) + v;
      }
      await recordFigure(
        '2 bad input',
        'JSON fuzz requests / 5xx / 4xx without message',
        `${requests} / ${failures.filter((f) => / -> 5/.test(f)).length} / ${failures.filter((f) => /without a clear message/.test(f)).length}`,
      );
      await recordFigure('2 bad input', 'JSON fuzz answers by status', JSON.stringify(byStatus));
      expect(failures.slice(0, 20)).toEqual([]);
      expect((await t.app.inject({ url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await t.close();
      await stripe.close();
    }
  }, 900_000);

  it('240 hostile image files: refused with a 4xx or ingested whole, rows and blobs agree', async () => {
    const t = await createTestApp({ maxUploadBytes: 4 * 1024 * 1024 });
    try {
      const { out, uploaded, consistency } = await runHostileUploads(t, 9001, 240);
      await recordFigure(
        '2 bad input',
        'hostile files / refused 4xx / ingested / 5xx',
        `${out.files} / ${out.refused} / ${out.accepted} / ${out.failures.length}`,
      );
      await recordFigure(
        '2 bad input',
        'after hostile files: orphan blobs / missing blobs / temp files',
        `${consistency.orphans.length} / ${consistency.missing.length} / ${consistency.temp.length}`,
      );
      expect(out.failures).toEqual([]);
      expect(out.accepted).toBe(uploaded);
      expect(consistency).toMatchObject({ missing: [], orphans: [], temp: [] });
    } finally {
      await t.close();
    }
  }, 900_000);

  it('crash safety: 50 uploads and 50 analysis jobs under 6 SIGKILLs', async () => {
    const f = await runCrashScenario({ uploads: 50, kills: 6, seed: 50 });
    await recordFigure(
      '4 crash safety',
      'uploads / kills / acknowledged / in flight at kill (kept whole)',
      `${f.uploads} / ${f.kills} / ${f.acknowledged} / ${f.inFlightAtKill} (${f.inFlightKept})`,
    );
    await recordFigure(
      '4 crash safety',
      'analysis jobs analysed / queue drain after last restart (s)',
      `${f.analysed}/${f.analysisJobs} / ${f.queueSeconds.toFixed(1)}`,
    );
    await recordFigure(
      '4 crash safety',
      'problems / orphan blobs left / temp files / missing blobs',
      `${f.problems.length} / ${f.orphansLeft} / ${f.tempLeft} / ${f.missingBlobs}`,
    );
    expect(f.problems).toEqual([]);
    expect(f.analysed).toBe(f.analysisJobs);
    expect(f.orphansLeft + f.tempLeft + f.missingBlobs).toBe(0);
  }, 900_000);

  // Load. The user model (load-users.ts): 200 simulated users, each with its own keep-alive
  // connection, a random start offset, a seeded request mix and a think time of 0.5-1.5 s after
  // every answer (about 1 request/s each), signed in to 40 accounts; the generator is its own process.
  it('load on PostgreSQL: 200 concurrent users (think time 0.5-1.5 s) for 60 s of mixed traffic, 0 errors, p99 <= 250 ms', async () => {
    const f = await loadOnOwnCluster({ users: 200, accounts: 40, seconds: 60, thinkMs: [500, 1500] });
    printLoad('postgres', f);
    await recordFigure(
      '6 load',
      'PostgreSQL, 200 users x 60 s (think 0.5-1.5 s): requests / req/s',
      `${f.requests} / ${f.rps}`,
    );
    await recordFigure('6 load', 'PostgreSQL, 200 users x 60 s: errors / non-2xx', `${f.errors} / ${f.non2xx}`);
    await recordFigure(
      '6 load',
      'PostgreSQL, 200 users x 60 s: latency p50 / p99 / max (ms)',
      `${f.p50} / ${f.p99} / ${f.max}`,
    );
    await recordFigure(
      '6 load',
      'PostgreSQL, 200 users x 60 s: server CPU per request (ms)',
      String(f.serverCpuPerRequest ?? 'n/a'),
    );
    expect(f.samples).toEqual([]);
    expect(f.errors).toBe(0);
    expect(f.non2xx).toBe(0);
    expect(f.requests).toBeGreaterThan(200 * 60 * 0.8);
    expect(f.p99).toBeLessThanOrEqual(250);
  }, 900_000);

  it('load on PGlite (figures only: the embedded default, one database engine on the server thread)', async () => {
    const f = await runLoad({ users: 200, accounts: 40, seconds: 60, thinkMs: [500, 1500] });
    printLoad('pglite', f);
    await recordFigure(
      '6 load',
      'PGlite, 200 users x 60 s (think 0.5-1.5 s): req/s / errors / p50 / p99 / max (ms)',
      `${f.rps} / ${f.errors} / ${f.p50} / ${f.p99} / ${f.max}`,
    );
    expect(f.non2xx).toBe(0);
  }, 900_000);

  it('saturation on PostgreSQL (figures only): 200 users in a closed loop (no think time) for 20 s', async () => {
    const f = await loadOnOwnCluster({ users: 200, accounts: 40, seconds: 20, thinkMs: [0, 0] });
    printLoad('saturation', f);
    await recordFigure(
      '6 load',
      'saturation (PostgreSQL), 200 closed-loop users x 20 s: req/s / p50 / p99 / errors',
      `${f.rps} / ${f.p50} / ${f.p99} / ${f.errors}`,
    );
    expect(f.non2xx).toBe(0);
  }, 900_000);
});
