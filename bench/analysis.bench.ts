/**
 * Vision throughput on this machine. Run: npx tsx bench/analysis.bench.ts [photos=50] [threads=1,2]
 * Prints model load time, photos/s for the full analysis (decode + embedding + detectors) in this
 * thread, and through the vision thread pool the server uses (one tfjs WASM runtime per thread),
 * plus the reference set's leave-one-out accuracy recorded by scripts/build-reference-embeddings.ts.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { createVisionEngine } from '../src/server/features/analysis/vision/engine';
import { createVisionPool } from '../src/server/features/analysis/vision/pool';
import { fromRoot } from '../src/server/lib/paths';

async function realPhotos(n: number): Promise<string[]> {
  const files: string[] = [];
  for (const set of ['reference-photos', 'eval-photos']) {
    const root = fromRoot('assets', set);
    for (const c of (await readdir(root, { withFileTypes: true })).filter((d) => d.isDirectory())) {
      for (const f of (await readdir(path.join(root, c.name))).sort()) files.push(path.join(root, c.name, f));
    }
  }
  // Spread over categories, deterministic.
  const step = Math.max(1, Math.floor(files.length / n));
  return files.filter((_, i) => i % step === 0).slice(0, n);
}

const n = Number(process.argv[2] ?? 50);
const threadCounts = (process.argv[3] ?? '1,2').split(',').map(Number);
const files = await realPhotos(n);
const buffers = await Promise.all(files.map((f) => readFile(f)));
const ref = JSON.parse(await readFile(fromRoot('assets', 'reference-embeddings.json'), 'utf8')) as {
  leaveOneOut?: { accuracy: number; coverage: number; acceptedAccuracy: number; photos: number };
};
console.log(`photos: ${files.length} real photos from assets/reference-photos and assets/eval-photos`);

if (threadCounts.includes(1)) {
  const engine = createVisionEngine();
  let t = performance.now();
  await engine.load();
  console.log(`model load (embedder + detectors + centroids): ${(performance.now() - t).toFixed(0)} ms`);
  let embedMs = 0;
  let detectMs = 0;
  t = performance.now();
  for (const b of buffers) {
    const r = await engine.analyze(b);
    embedMs += r.embeddingMs;
    detectMs += r.detectMs;
  }
  const secs = (performance.now() - t) / 1000;
  console.log(
    `1 thread, in process: ${(files.length / secs).toFixed(2)} photos/s ` +
      `(embedding ${(embedMs / files.length).toFixed(0)} ms, detectors ${(detectMs / files.length).toFixed(0)} ms per photo)`,
  );
}

for (const threads of threadCounts.filter((x) => x > 1)) {
  const pool = createVisionPool({ threads });
  let t = performance.now();
  await pool.load();
  const loadMs = performance.now() - t;
  t = performance.now();
  await Promise.all(buffers.map((b) => pool.analyze(b)));
  const secs = (performance.now() - t) / 1000;
  console.log(
    `${threads} vision threads (the server's pool): ${(files.length / secs).toFixed(2)} photos/s (load ${loadMs.toFixed(0)} ms)`,
  );
  await pool.close();
}

if (ref.leaveOneOut) {
  const l = ref.leaveOneOut;
  console.log(
    `reference set leave-one-out (${l.photos} photos): ${(l.accuracy * 100).toFixed(1)} % nearest-centroid; ` +
      `at the chosen margin ${(l.coverage * 100).toFixed(1)} % categorised, ${(l.acceptedAccuracy * 100).toFixed(1)} % of those right`,
  );
}
