/**
 * P1 ingest: a 12 MP JPEG (with EXIF) through `POST /api/photos` of the running server until it is
 * listed with its thumbnail, preview, thumbhash and EXIF taken-at time, against sharp making the
 * same derivatives (makeDerivatives) from the same file in one process (this one), in the same run.
 * Runs are interleaved so load drift hits both sides alike; the analysis queue is let go idle
 * before each pair (every upload enqueues an analysis that would otherwise steal the next run's CPU).
 * Target: ratio <= 1.3. The note also gives the CPU time per upload (server around each POST,
 * this process around makeDerivatives), which a shared machine's load does not move much.
 *
 *   npx tsx bench/photos.bench.ts [runs=6]
 *   BENCH_THREADS=1 ...                      also the CPU per upload of each thread (name:tid)
 *   BENCH_SERVER_NODE_ARGS='--trace-gc' ...  node flags for the server (e.g. --cpu-prof --cpu-prof-dir=D)
 */
import { readdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import sharp from 'sharp';
import { DEFAULT_IMAGE_THREADS } from '../src/server/config.js';
import { makeDerivatives } from '../src/server/features/photos/image-pipeline.js';
import { getJson, register, waitAnalysisIdle, type Session } from './lib/http.js';
import { fmtRatio, isMain, median, ms, printTable, type Row } from './lib/report.js';
import { withServer, type RunningServer } from './lib/server.js';

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

/** Upload, then the first gallery page until the photo is there complete, then its thumbnail. */
async function ingestOverHttp(s: Session, bytes: Buffer, name: string, answered?: () => Promise<void>) {
  const form = new FormData();
  form.append('photos', new Blob([new Uint8Array(bytes)], { type: 'image/jpeg' }), `${name}.jpg`);
  const t = performance.now();
  const res = await fetch(`${s.url}/api/photos`, { method: 'POST', headers: { cookie: s.cookie }, body: form });
  if (res.status !== 201) throw new Error(`upload failed ${res.status}: ${await res.text()}`);
  await res.arrayBuffer();
  const postMs = performance.now() - t;
  await answered?.();
  for (let tries = 0; tries < 100; tries++) {
    const page = await getJson<{ items: ListedPhoto[] }>(s, '/api/photos?limit=20');
    const p = page.items.find((x) => x.name === name);
    if (p && p.thumbhash && p.takenAt && p.previewUrl && p.thumbnailUrl) {
      const thumb = await fetch(`${s.url}${p.thumbnailUrl}`, { headers: { cookie: s.cookie } });
      if (!thumb.ok) throw new Error(`thumbnail ${thumb.status}`);
      await thumb.arrayBuffer();
      return postMs;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${name} was not listed complete (thumbhash, takenAt, preview, thumbnail)`);
}

/**
 * CPU time a process has used so far, in ms: its main thread and all its other threads (libuv's
 * pool, libvips, the embedded database's and the vision threads, GC helpers), from
 * `/proc/<pid>/task/<tid>/stat`. Wall-clock times on a shared machine swing with the load; the CPU
 * an upload costs does not, so this is the figure to compare before and after a change.
 */
async function cpuMs(pid: number): Promise<{ main: number; other: number; threads: Map<string, number> } | null> {
  const tick = 10; // USER_HZ is 100 on Linux
  try {
    let main = 0;
    let other = 0;
    const threads = new Map<string, number>();
    for (const tid of await readdir(`/proc/${pid}/task`)) {
      const stat = await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8').catch(() => null);
      if (!stat) continue; // a thread that ended meanwhile
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const used = (Number(f[11]) + Number(f[12])) * tick;
      const name = (await readFile(`/proc/${pid}/task/${tid}/comm`, 'utf8').catch(() => '?')).trim();
      threads.set(`${name}:${tid}`, used);
      if (tid === String(pid)) main += used;
      else other += used;
    }
    // Threads that have ended are gone from task/ but still counted in the process's own stat.
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const total = (Number(f[11]) + Number(f[12])) * tick;
    threads.set('(ended)', total - main - other);
    return { main, other: total - main, threads };
  } catch {
    return null; // not Linux
  }
}

const load = (l: number[]) => l.map((x) => x.toFixed(1)).join(' / ');

export async function runIngest(server: RunningServer, runs = 6): Promise<Row[]> {
  const loadAtStart = os.loadavg();
  const jpeg = await twelveMegapixelJpeg();
  const variants = await variantsOf(jpeg, runs + 1);
  const s = await register(server.url, 'p1');
  await waitAnalysisIdle(s);
  // Warm both paths once.
  await makeDerivatives(variants[0]!);
  await ingestOverHttp(s, variants[0]!, 'warm');
  const alone: number[] = [];
  const api: number[] = [];
  const posts: number[] = [];
  // Summed over the runs: CPU of this process around makeDerivatives, and of the server around
  // each POST (read as soon as it is answered; the analysis it wakes runs after that).
  const cpu = { alone: { main: 0, other: 0 }, post: { main: 0, other: 0 } };
  const byThread = new Map<string, number>();
  const aloneByThread = new Map<string, number>();
  for (let i = 1; i <= runs; i++) {
    await waitAnalysisIdle(s);
    let c0 = await cpuMs(process.pid);
    let t = performance.now();
    await makeDerivatives(variants[i]!);
    alone.push(performance.now() - t);
    let c1 = await cpuMs(process.pid);
    if (c0 && c1) {
      cpu.alone.main += c1.main - c0.main;
      cpu.alone.other += c1.other - c0.other;
      for (const [name, used] of c1.threads) {
        aloneByThread.set(name, (aloneByThread.get(name) ?? 0) + used - (c0.threads.get(name) ?? 0));
      }
    }
    c0 = await cpuMs(server.pid);
    t = performance.now();
    posts.push(
      await ingestOverHttp(s, variants[i]!, `bench-${i}`, async () => {
        c1 = await cpuMs(server.pid);
        if (c0 && c1) {
          cpu.post.main += c1.main - c0.main;
          cpu.post.other += c1.other - c0.other;
          for (const [name, used] of c1.threads)
            byThread.set(name, (byThread.get(name) ?? 0) + used - (c0.threads.get(name) ?? 0));
        }
      }),
    );
    api.push(performance.now() - t);
  }
  if (process.env.BENCH_THREADS) {
    const show = (m: Map<string, number>) =>
      [...m]
        .filter(([, v]) => v / runs >= 2)
        .map(([n, v]) => `${n} ${Math.round(v / runs)}`)
        .join(', ');
    console.log(
      `CPU per upload by thread (name:tid, ms); server: ${show(byThread)}; sharp alone: ${show(aloneByThread)}`,
    );
  }
  const per = (x: { main: number; other: number }) =>
    `${Math.round((x.main + x.other) / runs)} ms (main thread ${Math.round(x.main / runs)}, other threads ${Math.round(x.other / runs)})`;
  const a = median(alone);
  const b = median(api);
  return [
    {
      id: 'P1',
      measure: `ingest 12 MP JPEG (${(jpeg.length / 1048576).toFixed(1)} MB), median of ${runs}`,
      value: ms(b),
      ceiling: `${ms(a)} sharp alone`,
      ratio: fmtRatio(b / a),
      target: `ratio <= ${TARGET}`,
      met: b / a <= TARGET,
      note:
        `POST /api/photos alone ${ms(median(posts))} (ratio ${fmtRatio(median(posts) / a)}); the rest is the ` +
        `listing and thumbnail GETs (the new photo's analysis and fingerprint start once the POST is answered, ` +
        `inference at nice 10); CPU per upload: server around the POST ${per(cpu.post)}, sharp alone ` +
        `${per(cpu.alone)}; load average ${load(loadAtStart)} at start, ${load(os.loadavg())} at end`,
    },
  ];
}

if (isMain(import.meta.url)) {
  const runs = Number(process.argv[2] ?? 6);
  withServer((server) => runIngest(server, runs)).then(printTable, (err) => {
    console.error(err);
    process.exit(1);
  });
}
