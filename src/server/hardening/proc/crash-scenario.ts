import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../db/client';
import { blobConsistency, jpeg, rng } from '../support';
import { client, startServer, type ServerProcess } from './spawn';

const sha = (b: Buffer | ArrayBuffer) =>
  createHash('sha256')
    .update(Buffer.from(b as ArrayBuffer))
    .digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface CrashFigures {
  uploads: number;
  kills: number;
  acknowledged: number;
  inFlightAtKill: number;
  inFlightKept: number;
  analysisJobs: number;
  analysed: number;
  problems: string[];
  orphansLeft: number;
  tempLeft: number;
  missingBlobs: number;
  queueSeconds: number;
}

/**
 * Uploads `uploads` photos to the real server process (PGlite on disk under a temp DATA_DIR),
 * SIGKILLs it `kills` times at seeded random moments (mid-upload and mid-analysis), restarts it
 * each time, then checks: every acknowledged upload complete and visible with its exact bytes,
 * nothing half-visible, orphan blobs swept, the analysis queue finished.
 */
export async function runCrashScenario(opts: { uploads: number; kills: number; seed: number }): Promise<CrashFigures> {
  const r = rng(opts.seed);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'eyevu-crash-'));
  const env = {
    DATA_DIR: dataDir,
    HARDENING_SWEEP_GRACE_MS: '500',
    HARDENING_LOCK_MS: '1500',
    HARDENING_ANALYZE_MS: '120',
  };
  let srv: ServerProcess | undefined;
  const problems: string[] = [];
  const acknowledged = new Map<string, string>(); // photo id -> sha of the bytes sent
  const inFlight: string[] = []; // sha of uploads whose answer was lost to a kill
  let kills = 0;
  try {
    srv = await startServer(env);
    const c = client(() => srv!.url);
    const reg = await c.req('POST', '/api/auth/register', {
      firstName: 'Crash',
      lastName: 'Test',
      email: 'crash@example.com',
      password: 'secret123',
    });
    if (reg.status !== 201) throw new Error(`register: ${reg.status} ${await reg.text()}`);
    // Premium, so the free plan's limit never refuses a late upload.
    await c.req('POST', '/api/subscription', { plan: 'yearly' });

    // Kill points: upload indexes at which the server dies while that upload is in flight; the
    // last kill lands after the uploads, while the analysis queue is still working.
    const killAt = new Set<number>();
    while (killAt.size < Math.min(opts.kills - 1, opts.uploads - 1)) killAt.add(r.int(1, opts.uploads - 1));

    for (let i = 0; i < opts.uploads; i++) {
      const bytes = await jpeg(1000 + i, 64 + (i % 50));
      const form = new FormData();
      form.append('photos', new Blob([new Uint8Array(bytes)], { type: 'image/jpeg' }), `crash-${i}.jpg`);
      const answer = c.req('POST', '/api/photos', form).then(
        async (res) => ({
          status: res.status,
          body: (await res.json()) as { results: Array<{ photo?: { id: string } }> },
        }),
        () => null,
      );
      if (killAt.has(i)) {
        await sleep(r.int(0, 60));
        await srv.kill('SIGKILL');
        kills += 1;
      }
      const res = await answer;
      if (res?.status === 201) acknowledged.set(res.body.results[0]!.photo!.id, sha(bytes));
      else if (res === null) inFlight.push(sha(bytes));
      else problems.push(`upload ${i} answered ${res.status}`);
      if (killAt.has(i)) srv = await startServer(env);
    }
    // One more kill while analysis jobs are running.
    await sleep(r.int(50, 200));
    const status = (await (await c.req('GET', '/api/photos/analysis-status')).json()) as { pending: number };
    await srv.kill('SIGKILL');
    kills += 1;
    // What a kill between writing an upload's blobs and inserting its row leaves behind, planted
    // for certain (the random kills above may or may not land in that window): both must be swept.
    const planted = createHash('sha256').update(`orphan-${opts.seed}`).digest('hex');
    const plantedDir = path.join(dataDir, 'blobs', planted.slice(0, 2), planted.slice(2, 4));
    mkdirSync(plantedDir, { recursive: true });
    writeFileSync(path.join(plantedDir, planted), 'orphan');
    writeFileSync(path.join(plantedDir, `${planted}.abc123.tmp`), 'half');
    const old = new Date(Date.now() - 60_000);
    utimesSync(path.join(plantedDir, planted), old, old);
    utimesSync(path.join(plantedDir, `${planted}.abc123.tmp`), old, old);
    srv = await startServer(env);

    // The queue finishes (jobs held by a dead worker are taken again once their lock expires).
    const t0 = Date.now();
    let st = { total: 0, analyzed: 0, pending: -1 };
    while (Date.now() - t0 < 90_000) {
      st = (await (await c.req('GET', '/api/photos/analysis-status')).json()) as typeof st;
      if (st.pending === 0) break;
      await sleep(250);
    }
    const queueSeconds = (Date.now() - t0) / 1000;
    if (st.pending !== 0)
      problems.push(`analysis queue stuck: ${JSON.stringify(st)} (pending before the last kill: ${status.pending})`);

    const photos = (await (await c.req('GET', '/api/photos')).json()) as Array<{
      id: string;
      isDemo: boolean;
      analyzed: boolean;
      url: string;
      previewUrl: string;
      thumbnailUrl: string;
    }>;
    const uploaded = photos.filter((p) => !p.isDemo);
    const byId = new Map(uploaded.map((p) => [p.id, p]));
    for (const [id, digest] of acknowledged) {
      const p = byId.get(id);
      if (!p) {
        problems.push(`acknowledged upload ${id} is missing`);
        continue;
      }
      const original = await c.req('GET', p.url);
      if (original.status !== 200 || sha(await original.arrayBuffer()) !== digest)
        problems.push(`photo ${id}: original differs`);
    }
    let inFlightKept = 0;
    for (const p of uploaded) {
      if (!acknowledged.has(p.id)) {
        // An upload whose answer was lost may have committed; then it must be whole and one we sent.
        const original = await c.req('GET', p.url);
        const digest = original.status === 200 ? sha(await original.arrayBuffer()) : '';
        if (!inFlight.includes(digest)) problems.push(`photo ${p.id} is neither acknowledged nor an in-flight upload`);
        else inFlightKept += 1;
      }
      for (const u of [p.previewUrl, p.thumbnailUrl]) {
        const res = await c.req('GET', u);
        if (res.status !== 200 || (await res.arrayBuffer()).byteLength === 0)
          problems.push(`photo ${p.id}: ${u} -> ${res.status}`);
      }
      if (!p.analyzed) problems.push(`photo ${p.id} not analysed`);
    }

    // Orphans: the sweep at start removed blobs of uploads that died before their row.
    await sleep(1500);
    await srv.kill('SIGTERM');
    srv = undefined;
    const db = await openDatabase({ pgliteDir: path.join(dataDir, 'db') });
    try {
      const cons = await blobConsistency(db.db, path.join(dataDir, 'blobs'));
      if (cons.missing.length) problems.push(`rows reference missing blobs: ${cons.missing.join(', ')}`);
      return {
        uploads: opts.uploads,
        kills,
        acknowledged: acknowledged.size,
        inFlightAtKill: inFlight.length,
        inFlightKept,
        analysisJobs: uploaded.length,
        analysed: uploaded.filter((p) => p.analyzed).length,
        problems,
        orphansLeft: cons.orphans.length,
        tempLeft: cons.temp.length,
        missingBlobs: cons.missing.length,
        queueSeconds,
      };
    } finally {
      await db.close();
    }
  } finally {
    await srv?.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
}
