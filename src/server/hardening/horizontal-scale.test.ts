import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOwnCluster } from './proc/pg';
import { client, startServer, type ServerProcess } from './proc/spawn';
import { jpeg, recordFigure } from './support';

/**
 * two server processes on one PostgreSQL database and one blob folder. A session made
 * on one works on the other, an upload on one is served by the other, and every analysis job runs
 * exactly once (jobs are claimed with FOR UPDATE SKIP LOCKED; the analyzer logs each run).
 */
export async function runTwoProcesses(opts: { uploads: number }) {
  const cluster = await startOwnCluster();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'eyevu-scale-'));
  const log = path.join(dir, 'analysis.log');
  writeFileSync(log, '');
  const env = (n: number) => ({
    DATABASE_URL: cluster.url,
    DATA_DIR: path.join(dir, `data-${n}`),
    BLOB_DIR: path.join(dir, 'blobs'),
    HARDENING_ANALYSIS_LOG: log,
    HARDENING_ANALYZE_MS: '40',
  });
  let a: ServerProcess | undefined;
  let b: ServerProcess | undefined;
  const sha = (buf: ArrayBuffer | Buffer) =>
    createHash('sha256')
      .update(Buffer.from(buf as ArrayBuffer))
      .digest('hex');
  try {
    // The first start migrates the empty database; the second then starts beside it.
    a = await startServer(env(1));
    b = await startServer(env(2));
    const onA = client(() => a!.url);
    const onB = client(() => b!.url);
    const reg = await onA.req('POST', '/api/auth/register', {
      firstName: 'Scale',
      lastName: 'Out',
      email: 'scale@example.com',
      password: 'secret123',
    });
    if (reg.status !== 201) throw new Error(`register ${reg.status}`);
    onB.setCookie(onA.cookie);
    const sessionOnB = (await onB.req('GET', '/api/auth/user')).status;
    await onA.req('POST', '/api/subscription', { plan: 'yearly' });

    // Uploads alternate between the processes; each is then fetched from the other one.
    const served: boolean[] = [];
    await Promise.all(
      Array.from({ length: opts.uploads }, async (_, i) => {
        const bytes = await jpeg(5000 + i, 60 + (i % 40));
        const form = new FormData();
        form.append('photos', new Blob([new Uint8Array(bytes)], { type: 'image/jpeg' }), `scale-${i}.jpg`);
        const [up, other] = i % 2 ? [onA, onB] : [onB, onA];
        const res = await up.req('POST', '/api/photos', form);
        const photo = ((await res.json()) as { results: Array<{ photo: { url: string } }> }).results[0]!.photo;
        const back = await other.req('GET', photo.url);
        served.push(back.status === 200 && sha(await back.arrayBuffer()) === sha(bytes));
      }),
    );
    // Both processes queue the demo library at the same moment: the same jobs, raced.
    await Promise.all([onA.req('POST', '/api/photos/analyze-all'), onB.req('POST', '/api/photos/analyze-all')]);
    let st = { total: 0, analyzed: 0, pending: -1 };
    const t0 = Date.now();
    while (Date.now() - t0 < 60_000) {
      st = (await (await onB.req('GET', '/api/photos/analysis-status')).json()) as typeof st;
      if (st.pending === 0 && st.analyzed === st.total) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const runs = readFileSync(log, 'utf8').trim().split('\n').filter(Boolean);
    const perImage = new Map<string, number>();
    const perPid = new Map<string, number>();
    for (const line of runs) {
      const [img, pid] = line.split(' ');
      perImage.set(img!, (perImage.get(img!) ?? 0) + 1);
      perPid.set(pid!, (perPid.get(pid!) ?? 0) + 1);
    }
    return { sessionOnB, served, status: st, runs: runs.length, perImage, perPid };
  } finally {
    await a?.kill('SIGKILL');
    await b?.kill('SIGKILL');
    await cluster.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

let result: Awaited<ReturnType<typeof runTwoProcesses>>;
beforeAll(async () => {
  result = await runTwoProcesses({ uploads: 12 });
}, 180_000);
afterAll(() => undefined);

describe('two server processes, one database, one blob folder', () => {
  it('a session made on one works on the other', () => {
    expect(result.sessionOnB).toBe(200);
  });
  it('an upload on one is served, byte for byte, by the other', () => {
    expect(result.served).toHaveLength(12);
    expect(result.served.every(Boolean)).toBe(true);
  });
  it('each analysis job runs exactly once across both processes', async () => {
    expect(result.status.pending).toBe(0);
    expect(result.status.analyzed).toBe(result.status.total);
    expect(result.status.total).toBe(12 + 10); // uploads + the demo library
    expect(result.runs).toBe(result.status.total);
    expect([...result.perImage.values()].every((n) => n === 1)).toBe(true);
    await recordFigure(
      '8 horizontal scale',
      'jobs / runs / processes that ran jobs',
      `${result.status.total} / ${result.runs} / ${result.perPid.size}`,
    );
  });
});
