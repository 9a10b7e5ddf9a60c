/**
 * P1 ingest: a 12 MP JPEG (with EXIF) through `POST /api/photos` of the running server until it is
 * listed with its thumbnail, preview, thumbhash and EXIF taken-at time, against sharp making the
 * same derivatives (makeDerivatives) from the same file in one process (this one), in the same run.
 * Runs are interleaved so load drift hits both sides alike; the analysis queue is let go idle
 * before each pair (every upload enqueues an analysis that would otherwise steal the next run's CPU).
 * Target: ratio <= 1.3. The note also gives the CPU time per upload (server around each POST,
 * this process around makeDerivatives), which a shared machine's load does not move much.
 *
 *   npx tsx bench/photos.bench.ts [runs=6] [another checkout's root]
 *   BENCH_THREADS=1 ...                      also the CPU per upload of each thread (name:tid)
 *   BENCH_OTHER_FIRST=1 ...                  starts the other checkout's server first (see below)
 *
 * With another checkout's root, its build (its dist/, built beforehand) runs as a second server
 * and is measured in the same loop: a before/after on a shared machine.
 *   BENCH_SERVER_NODE_ARGS='--trace-gc' ...  node flags for the server (e.g. --cpu-prof --cpu-prof-dir=D)
 */
import { readdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { DEFAULT_IMAGE_THREADS } from '../src/server/config.js';
import { makeDerivatives } from '../src/server/features/photos/image-pipeline.js';
import { getJson, register, waitAnalysisIdle, type Session } from './lib/http.js';
import { fmtRatio, isMain, median, ms, printTable, type Row } from './lib/report.js';
import { removeDir, startServer, withServer, type RunningServer } from './lib/server.js';

// The server sets sharp's threads from config at start; this process makes derivatives itself.
sharp.concurrency(DEFAULT_IMAGE_THREADS);

const TARGET = 1.3;

/** A photo-like 12 MP JPEG (4000 x 3000): smooth gradients plus fine grain, quality 90, camera EXIF. */
export async function twelveMegapixelJpeg(): Promise<Buffer> {
  const w = 4000;
  const h = 3000;
  const gradient = new Uint8Array(w * h * 3);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 3;
      gradient[i] = (x * 255) / w;
      gradient[i + 1] = (y * 255) / h;
      gradient[i + 2] = 128 + 100 * Math.sin((x + y) / 150);
    }
  }
  const grain = await sharp({
    create: { width: w, height: h, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 0, sigma: 12 } },
  })
    .raw()
    .toBuffer();
  for (let i = 0; i < gradient.length; i++) gradient[i] = Math.max(0, Math.min(255, gradient[i]! + grain[i]! - 12));
  return sharp(gradient, { raw: { width: w, height: h, channels: 3 } })
    .withExif({
      IFD0: { Make: 'Eyevu', Model: 'Bench Camera', DateTime: '2024:05:01 10:20:30' },
      IFD2: { DateTimeOriginal: '2024:05:01 10:20:30', ExposureTime: '1/250', FNumber: '2.8' },
    })
    .jpeg({ quality: 90 })
    .toBuffer();
}

/** `count` different files from one: each upload must be new bytes, or de-duplication would flatter the API. */
export function variantsOf(jpeg: Buffer, count: number): Promise<Buffer[]> {
  return Promise.all(
    Array.from({ length: count }, (_, i) =>
      sharp(jpeg)
        .composite([{ input: { create: { width: 8, height: 8, channels: 3, background: { r: i, g: 0, b: 0 } } } }])
        .keepExif()
        .jpeg({ quality: 90 })
        .toBuffer(),
    ),
  );
}

interface ListedPhoto {
  id: string;
  name: string;
  thumbnailUrl: string;
  previewUrl: string;
  thumbhash: string | null;
  takenAt: string | null;
}

/**
 * Upload, then the first gallery page until the photo is there complete, then its thumbnail.
 * Answers the time of the whole and of the POST alone, both without `answered` (the benchmark's
 * own reading of the server's CPU, which is not the server's work).
 */
async function ingestOverHttp(
  s: Session,
  bytes: Buffer,
  name: string,
  answered?: () => Promise<void>,
): Promise<{ totalMs: number; postMs: number }> {
  const form = new FormData();
  form.append('photos', new Blob([new Uint8Array(bytes)], { type: 'image/jpeg' }), `${name}.jpg`);
  const t = performance.now();
  const res = await fetch(`${s.url}/api/photos`, { method: 'POST', headers: { cookie: s.cookie }, body: form });
  if (res.status !== 201) throw new Error(`upload failed ${res.status}: ${await res.text()}`);
  await res.arrayBuffer();
  const postMs = performance.now() - t;
  const a = performance.now();
  await answered?.();
  const ownMs = performance.now() - a;
  for (let tries = 0; tries < 100; tries++) {
    const page = await getJson<{ items: ListedPhoto[] }>(s, '/api/photos?limit=20');
    const p = page.items.find((x) => x.name === name);
    if (p && p.thumbhash && p.takenAt && p.previewUrl && p.thumbnailUrl) {
      const thumb = await fetch(`${s.url}${p.thumbnailUrl}`, { headers: { cookie: s.cookie } });
      if (!thumb.ok) throw new Error(`thumbnail ${thumb.status}`);
      await thumb.arrayBuffer();
      return { totalMs: performance.now() - t - ownMs, postMs };
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${name} was not listed complete (thumbhash, takenAt, preview, thumbnail)`);
}

interface CpuUse {
  main: number;
  other: number;
  /** Per thread (name:tid), only when asked for. */
  threads: Map<string, number>;
}

const TICK_MS = 10; // USER_HZ is 100 on Linux
/** utime + stime in ms from a /proc stat line (the name in parentheses may hold spaces). */
const usedMs = (stat: string) => {
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * TICK_MS;
};

/**
 * CPU time a process has used so far, in ms: its main thread and all its other threads (libuv's
 * pool, libvips, the embedded database's and the vision threads, GC helpers), from /proc. Two
 * files unless `byThread` (every thread's, which takes tens of ms on a loaded machine: it is read
 * while the server works, so the whole process is read only when the breakdown is asked for).
 * Wall-clock times on a shared machine swing with the load; the CPU an upload costs does not, so
 * this is the figure to compare before and after a change.
 */
async function cpuMs(pid: number, byThread: boolean): Promise<CpuUse | null> {
  try {
    const total = usedMs(await readFile(`/proc/${pid}/stat`, 'utf8'));
    const main = usedMs(await readFile(`/proc/${pid}/task/${pid}/stat`, 'utf8'));
    const threads = new Map<string, number>();
    if (byThread) {
      let listed = 0;
      for (const tid of await readdir(`/proc/${pid}/task`)) {
        const stat = await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8').catch(() => null);
        if (!stat) continue; // a thread that ended meanwhile
        const name = (await readFile(`/proc/${pid}/task/${tid}/comm`, 'utf8').catch(() => '?')).trim();
        const used = usedMs(stat);
        threads.set(`${name}:${tid}`, used);
        listed += used;
      }
      // Threads that have ended are gone from task/ but still counted in the process's own stat.
      threads.set('(ended)', total - listed);
    }
    return { main, other: total - main, threads };
  } catch {
    return null; // not Linux
  }
}

const load = (l: number[]) => l.map((x) => x.toFixed(1)).join(' / ');

/** One build's server under test, with its user and what was measured of it. */
interface Target {
  label: string;
  server: RunningServer;
  session: Session;
  api: number[];
  posts: number[];
  cpu: { main: number; other: number };
  byThread: Map<string, number>;
}

function addCpu(sum: { main: number; other: number }, byThread: Map<string, number>, c0: CpuUse, c1: CpuUse) {
  sum.main += c1.main - c0.main;
  sum.other += c1.other - c0.other;
  for (const [name, used] of c1.threads)
    byThread.set(name, (byThread.get(name) ?? 0) + used - (c0.threads.get(name) ?? 0));
}

/**
 * P1 on `server`, and with `other` (another build's server, e.g. main's) the same measure of it
 * in the same loop: each run makes the derivatives alone, then uploads to each server (their
 * order alternating), every measure after both analysis queues have gone idle.
 */
export async function runIngest(
  server: RunningServer,
  runs = 6,
  other?: { server: RunningServer; label: string },
): Promise<Row[]> {
  const detailed = Boolean(process.env.BENCH_THREADS);
  const loadAtStart = os.loadavg();
  const jpeg = await twelveMegapixelJpeg();
  const variants = await variantsOf(jpeg, 2 * runs + 2);
  const targets: Target[] = [];
  for (const [label, srv] of other
    ? [['this build', server] as const, [other.label, other.server] as const]
    : [['', server] as const]) {
    targets.push({
      label,
      server: srv,
      session: await register(srv.url, 'p1'),
      api: [],
      posts: [],
      cpu: { main: 0, other: 0 },
      byThread: new Map(),
    });
  }
  const idle = () => Promise.all(targets.map((x) => waitAnalysisIdle(x.session)));
  await idle();
  // Warm every path once.
  let next = 0;
  await makeDerivatives(variants[next]!);
  for (const x of targets) await ingestOverHttp(x.session, variants[next++]!, 'warm');
  const alone: number[] = [];
  const cpuAlone = { main: 0, other: 0 };
  const aloneByThread = new Map<string, number>();
  for (let i = 1; i <= runs; i++) {
    await idle();
    const a0 = await cpuMs(process.pid, detailed);
    const t = performance.now();
    await makeDerivatives(variants[next]!);
    alone.push(performance.now() - t);
    const a1 = await cpuMs(process.pid, detailed);
    if (a0 && a1) addCpu(cpuAlone, aloneByThread, a0, a1);
    const order = i % 2 ? targets : [...targets].reverse();
    for (const x of order) {
      await idle();
      // Server CPU around the POST, read as soon as it is answered (the analysis it wakes runs after that).
      const c0 = await cpuMs(x.server.pid, detailed);
      const { totalMs, postMs } = await ingestOverHttp(x.session, variants[next++]!, `bench-${i}`, async () => {
        const c1 = await cpuMs(x.server.pid, detailed);
        if (c0 && c1) addCpu(x.cpu, x.byThread, c0, c1);
      });
      x.api.push(totalMs);
      x.posts.push(postMs);
    }
    console.log(
      `run ${i}: sharp alone ${ms(alone[alone.length - 1]!)}` +
        targets
          .map(
            (x) =>
              `; ${x.label || 'server'} ${ms(x.api[x.api.length - 1]!)} (POST ${ms(x.posts[x.posts.length - 1]!)})`,
          )
          .join(''),
    );
  }
  if (detailed) {
    const show = (m: Map<string, number>) =>
      [...m]
        .filter(([, v]) => v / runs >= 2)
        .map(([n, v]) => `${n} ${Math.round(v / runs)}`)
        .join(', ');
    for (const x of targets)
      console.log(`CPU per upload by thread (name:tid, ms), server ${x.label}: ${show(x.byThread)}`);
    console.log(`CPU per makeDerivatives by thread, sharp alone: ${show(aloneByThread)}`);
  }
  const per = (x: { main: number; other: number }) =>
    `${Math.round((x.main + x.other) / runs)} ms (main thread ${Math.round(x.main / runs)}, other threads ${Math.round(x.other / runs)})`;
  const a = median(alone);
  return targets.map((x) => {
    const b = median(x.api);
    return {
      id: 'P1',
      measure: `ingest 12 MP JPEG (${(jpeg.length / 1048576).toFixed(1)} MB), median of ${runs}${x.label ? `, ${x.label}` : ''}`,
      value: ms(b),
      ceiling: `${ms(a)} sharp alone`,
      ratio: fmtRatio(b / a),
      target: `ratio <= ${TARGET}`,
      met: b / a <= TARGET,
      note:
        `POST /api/photos alone ${ms(median(x.posts))} (ratio ${fmtRatio(median(x.posts) / a)}); the rest is the ` +
        `listing and thumbnail GETs (the new photo's analysis and fingerprint wait for a quiet server: no request ` +
        `in flight, 100 ms after the POST's answer; inference at nice 10); CPU per upload: server around the POST ${per(x.cpu)}, sharp alone ` +
        `${per(cpuAlone)}; load average ${load(loadAtStart)} at start, ${load(os.loadavg())} at end`,
    };
  });
}

if (isMain(import.meta.url)) {
  const runs = Number(process.argv[2] ?? 6);
  const otherRoot = process.argv[3] ? path.resolve(process.argv[3]) : undefined;
  // The server started second measured as fast or faster in 11 of 13 pairs, whichever build it was
  // (by up to 0.3 of ratio at load 4-9; cause not found): BENCH_OTHER_FIRST=1 starts the other
  // build's first, so a before/after can be run both ways and averaged.
  const otherFirst = otherRoot && process.env.BENCH_OTHER_FIRST === '1';
  (async () => {
    const early = otherFirst ? await startServer({ root: otherRoot }) : null;
    try {
      return await withServer(async (server) => {
        if (!otherRoot) return runIngest(server, runs);
        const other = early ?? (await startServer({ root: otherRoot }));
        try {
          return await runIngest(server, runs, { server: other, label: `build of ${otherRoot}` });
        } finally {
          await other.stop();
          removeDir(other.dataDir);
        }
      });
    } finally {
      // Stopped above once measured; stopped here if this build's server never started.
      if (early) {
        await early.stop();
        removeDir(early.dataDir);
      }
    }
  })().then(printTable, (err) => {
    console.error(err);
    process.exit(1);
  });
}
