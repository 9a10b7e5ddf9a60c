/**
 * The vision engine alone: accuracy on photos it was never tuned on, and throughput.
 * Run: npx tsx bench/analysis.bench.ts [photos=all] [threads=1,2] [batch=the server's]
 *
 * Photos: the TEST part of assets/reference-photos (fixed by file name before tuning; see
 * bench/README.md) and then the demo library. The FRESH test part (test-part photos listed in
 * round2.txt, round3.txt and round4.txt, added after the rule was frozen and never looked at while
 * choosing) is reported on its own first, the newest round also alone. For each thread count: model load, photos/s and CPU
 * time per photo (process.cpuUsage: every thread of this process) for the
 * full analysis (decode + embedding + detectors + category model), in this thread (1) or through
 * the vision thread pool the server uses (> 1, one tfjs WASM runtime per thread). Accuracy, per
 * category, the confusion matrix, the share left uncategorized and the precision of the categories
 * given are printed from the last run, with the machine's load average at the start and the end:
 * the machine is shared, so photos/s is only comparable within one run.
 */
import { readdir, readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import path from 'node:path';
import { projectRoot } from '../src/server/lib/paths.js';
import {
  createVisionEngine,
  createVisionPool,
  VISION_BATCH,
  demoPhotos,
  figures,
  labelledPhotos,
  report,
  type Scored,
  type VisionResult,
} from '../src/server/features/analysis/index';

const limit = process.argv[2] && process.argv[2] !== 'all' ? Number(process.argv[2]) : Infinity;
const threadCounts = (process.argv[3] ?? '1,2').split(',').map(Number);
const batch = Number(process.argv[4] ?? VISION_BATCH);
const test = await labelledPhotos('test');
// Which round added each photo, read here from every round<N>.txt (lines are <category>/<file>; '#'
// starts a note), so a new round is reported without touching the engine's list of rounds.
const referenceDir = path.join(projectRoot, 'assets', 'reference-photos');
const roundOf = new Map<string, number>();
for (const name of await readdir(referenceDir)) {
  const n = /^round(\d+)\.txt$/.exec(name)?.[1];
  if (!n) continue;
  for (const line of (await readFile(path.join(referenceDir, name), 'utf8')).split('\n')) {
    if (line && !line.startsWith('#')) roundOf.set(line.trim(), Number(n));
  }
}
const roundOfFile = (file: string): number => roundOf.get(file.split(/[\\/]/).slice(-2).join('/')) ?? 1;
const newestRound = Math.max(1, ...roundOf.values());
const demo = await demoPhotos();
const photos = [...test, ...demo].slice(0, limit);
const buffers = await Promise.all(photos.map((p) => readFile(p.file)));
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
console.log(`photos: ${photos.length} (test part ${test.length}, demo library ${demo.length}); load average ${load()}`);

/** CPU time of this whole process (all threads) per photo since `from`, and what 2 idle cores would give. */
function cpuPerPhoto(from: NodeJS.CpuUsage): string {
  const u = process.cpuUsage(from);
  const ms = (u.user + u.system) / 1000 / photos.length;
  return `CPU ${ms.toFixed(0)} ms per photo (${(2000 / ms).toFixed(2)} photos/s on 2 idle cores)`;
}

let results: VisionResult[] = [];
for (const threads of threadCounts) {
  if (threads === 1) {
    const engine = createVisionEngine();
    let t = performance.now();
    await engine.load();
    console.log(`model load (embedder + detectors + category model): ${(performance.now() - t).toFixed(0)} ms`);
    let embedMs = 0;
    let detectMs = 0;
    results = [];
    const c0 = process.cpuUsage();
    t = performance.now();
    for (const b of buffers) {
      const r = await engine.analyze(b);
      results.push(r);
      embedMs += r.embeddingMs;
      detectMs += r.detectMs;
    }
    const secs = (performance.now() - t) / 1000;
    console.log(
      `1 thread, in process: ${(photos.length / secs).toFixed(2)} photos/s, ${cpuPerPhoto(c0)} ` +
        `(embedding ${(embedMs / photos.length).toFixed(0)} ms, detectors ${(detectMs / photos.length).toFixed(0)} ms per photo, wall)`,
    );
    continue;
  }
  const pool = createVisionPool({ threads, batch });
  let t = performance.now();
  await pool.load();
  const loadMs = performance.now() - t;
  const c0 = process.cpuUsage();
  t = performance.now();
  results = await Promise.all(buffers.map((b) => pool.analyze(b)));
  const secs = (performance.now() - t) / 1000;
  console.log(
    `${threads} vision threads (the server's pool, batches of up to ${batch}): ${(photos.length / secs).toFixed(2)} photos/s (load ${loadMs.toFixed(0)} ms), ${cpuPerPhoto(c0)}`,
  );
  await pool.close();
}

if (results.length === photos.length) {
  const rows: (Scored & { part: 'test' | 'demo'; fresh: boolean; round: number })[] = photos.map((p, i) => ({
    expected: p.expected,
    got: results[i]!.category,
    part: i < test.length ? 'test' : 'demo',
    fresh: i < test.length && roundOfFile(p.file) > 1,
    round: roundOfFile(p.file),
  }));
  const testRows = rows.filter((r) => r.part === 'test');
  const demoRows = rows.filter((r) => r.part === 'demo');
  const freshRows = rows.filter((r) => r.fresh);
  console.log(
    `\n${report(
      `round ${newestRound} test part (the newest round)`,
      freshRows.filter((r) => r.round === newestRound),
    )}\n`,
  );
  console.log(`\n${report(`FRESH test part (rounds 2-${newestRound}, never looked at while choosing)`, freshRows)}\n`);
  const ff = figures(freshRows);
  console.log(
    `fresh test-part accuracy ${(ff.accuracy * 100).toFixed(1)} %, uncategorized ${(ff.abstained * 100).toFixed(1)} %, ` +
      `precision ${(ff.precision * 100).toFixed(1)} %`,
  );
  console.log(`\n${report(`whole TEST part (rounds 1-${newestRound})`, testRows)}\n`);
  const f = figures(testRows);
  const skipped = results.filter((r) => !r.detectorsRun).length;
  console.log(`detectors skipped (confident probe, not people): ${skipped}/${results.length}`);
  const demoRight = demoRows.filter((r) => r.got === r.expected).length;
  console.log(
    `test-part accuracy ${(f.accuracy * 100).toFixed(1)} %, uncategorized ${(f.abstained * 100).toFixed(1)} %, ` +
      `precision ${(f.precision * 100).toFixed(1)} %; demo library ${demoRight}/${demoRows.length}`,
  );
  for (const [i, r] of rows.entries()) {
    if (r.got !== r.expected)
      console.log(
        `  ${r.fresh ? 'fresh ' : ''}${r.part} ${photos[i]!.file.split('/').slice(-2).join('/')}: ${r.expected} -> ${r.got}`,
      );
  }
}
console.log(`load average at the end ${load()}`);
