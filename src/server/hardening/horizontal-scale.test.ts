import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMITS } from '../http/rate-limits';
import { SESSION_CACHE_MS } from '../http/session';
import { S3BlobStore } from '../storage/s3-blob-store';
import { startTestObjectStore } from '../test/object-store';
import { startOwnCluster } from './proc/pg';
import { client, startServer, type ServerProcess } from './proc/spawn';
import { jpeg, recordFigure } from './support';

/** How long another process may take to hear of a logout: well under its cache's lifetime. */
const LOGOUT_HEARD_WITHIN_MS = 2_000;

/**
 * Two server processes that share nothing but one PostgreSQL database and one S3-compatible object
 * store (each has its own data folder). A session made on one works on the other and a logout on one
 * ends it on the other; an upload on one is served by the other; both count into one login limit;
 * every analysis job runs exactly once (jobs are claimed with FOR UPDATE SKIP LOCKED; the analyzer
 * logs each run).
 */
export async function runTwoProcesses(opts: { uploads: number }) {
  const cluster = await startOwnCluster();
  const store = await startTestObjectStore();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'eyevu-scale-'));
  const log = path.join(dir, 'analysis.log');
  writeFileSync(log, '');
  const env = (n: number) => ({
    DATABASE_URL: cluster.url,
    DATA_DIR: path.join(dir, `data-${n}`),
    ...store.env,
    HARDENING_ANALYSIS_LOG: log,
    HARDENING_ANALYZE_MS: '40',
    HARDENING_DEFAULT_LIMITS: 'true',
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
    if (reg.status !== 201) throw new Error(`register ${reg.status}: ${await reg.text()}`);
    onB.setCookie(onA.cookie);
    const sessionOnB = (await onB.req('GET', '/api/auth/user')).status;
    await onA.req('POST', '/api/subscription', { plan: 'yearly' });

    // Uploads alternate between the processes; each is then fetched from the other one. Four run
    // at once, two on each process (a user's uploads at once are limited per process, to 3).
    const served: boolean[] = [];
    const uploadOne = async (i: number) => {
      const bytes = await jpeg(5000 + i, 60 + (i % 40));
      const form = new FormData();
      form.append('photos', new Blob([new Uint8Array(bytes)], { type: 'image/jpeg' }), `scale-${i}.jpg`);
      const [up, other] = i % 2 ? [onA, onB] : [onB, onA];
      const res = await up.req('POST', '/api/photos', form);
      if (res.status !== 201) throw new Error(`upload ${i}: ${res.status} ${await res.text()}`);
      const photo = ((await res.json()) as { results: Array<{ photo: { url: string } }> }).results[0]!.photo;
      const back = await other.req('GET', photo.url);
      served.push(back.status === 200 && sha(await back.arrayBuffer()) === sha(bytes));
    };
    const LANES = 4;
    await Promise.all(
      Array.from({ length: LANES }, async (_, lane) => {
        for (let i = lane; i < opts.uploads; i += LANES) await uploadOne(i);
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

    // Nothing on either process's disk: every photo file is in the bucket.
    const localBlobs = [1, 2].filter((n) => existsSync(path.join(dir, `data-${n}`, 'blobs')));
    const bucket = new S3BlobStore(store.settings);
    let inBucket = 0;
    for await (const _ of bucket.list()) inBucket += 1;
    bucket.close();

    // A second session, signed in on A and used on B (cached there), then signed out on A.
    const second = client(() => a!.url);
    const login = await second.req('POST', '/api/auth/login', { email: 'scale@example.com', password: 'secret123' });
    if (login.status !== 200) throw new Error(`login ${login.status}: ${await login.text()}`);
    const onBSecond = client(() => b!.url);
    onBSecond.setCookie(second.cookie);
    const beforeLogout = (await onBSecond.req('GET', '/api/photos/summary')).status;
    const loggedOut = (await second.req('POST', '/api/auth/logout')).status;
    const t1 = Date.now();
    let afterLogout = 0;
    while (Date.now() - t1 < LOGOUT_HEARD_WITHIN_MS) {
      afterLogout = (await onBSecond.req('GET', '/api/photos/summary')).status;
      if (afterLogout === 401) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const logoutHeardMs = Date.now() - t1;
    const firstSessionOnB = (await onB.req('GET', '/api/photos/summary')).status;

    // Wrong passwords for one email from one address, all at once, half to each process (an email
    // of its own: the sign-in above counted for scale@example.com). One shared counter lets exactly
    // `max` through; counters per process would let every one through.
    const perIpEmail = DEFAULT_RATE_LIMITS['POST /api/auth/login']!.find((r) => r.key === 'ip+email')!.max;
    const guesses = await Promise.all(
      Array.from({ length: perIpEmail + 2 }, async (_, i) => {
        const on = i % 2 ? onA : onB;
        const res = await on.req('POST', '/api/auth/login', { email: 'guessed@example.com', password: `guess-${i}` });
        return res.status;
      }),
    );
    return {
      sessionOnB,
      served,
      status: st,
      runs: runs.length,
      perImage,
      perPid,
      localBlobs,
      inBucket,
      logout: { beforeLogout, loggedOut, afterLogout, logoutHeardMs, firstSessionOnB },
      guesses,
      perIpEmail,
    };
  } catch (err) {
    // A failure here skips every test of the file: say what each process wrote, its errors first
    // (CI shows only the start of this message).
    const said = (p: ServerProcess | undefined, n: number) => {
      if (!p) return `\n--- process ${n}: (not started)`;
      const errors = p
        .output()
        .split('\n')
        .filter((line) => /"level":(50|60)/.test(line));
      return `\n--- process ${n} errors:\n${errors.join('\n') || '(none)'}\n--- process ${n}:\n${p.output()}`;
    };
    throw new Error(`${err instanceof Error ? err.message : String(err)}${said(a, 1)}${said(b, 2)}`, { cause: err });
  } finally {
    await a?.kill('SIGKILL');
    await b?.kill('SIGKILL');
    await cluster.destroy();
    await store.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

let result: Awaited<ReturnType<typeof runTwoProcesses>>;
beforeAll(async () => {
  result = await runTwoProcesses({ uploads: 12 });
}, 600_000);
afterAll(() => undefined);

describe('two server processes sharing only PostgreSQL and an S3-compatible object store', () => {
  it('a session made on one works on the other', () => {
    expect(result.sessionOnB).toBe(200);
  });
  it('a logout on one is refused on the other at once, though the other had the session cached', async () => {
    const { beforeLogout, loggedOut, afterLogout, logoutHeardMs, firstSessionOnB } = result.logout;
    expect(beforeLogout).toBe(200);
    expect(loggedOut).toBe(200);
    expect(afterLogout).toBe(401);
    expect(logoutHeardMs).toBeLessThan(SESSION_CACHE_MS);
    // Only that session ended.
    expect(firstSessionOnB).toBe(200);
    await recordFigure('8 horizontal scale', 'logout on A refused on B after', `${logoutHeardMs} ms`);
  });
  it('an upload on one is served, byte for byte, by the other, from the bucket', () => {
    expect(result.served).toHaveLength(12);
    expect(result.served.every(Boolean)).toBe(true);
    expect(result.localBlobs).toEqual([]);
    // Original, preview and thumbnail of each upload, and of the demo library.
    expect(result.inBucket).toBeGreaterThanOrEqual(3 * 12);
  });
  it('both count into one login limit: of concurrent guesses on both, exactly the limit get an answer', () => {
    expect([...result.guesses].sort()).toEqual([...Array(result.perIpEmail).fill(401), 429, 429]);
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
