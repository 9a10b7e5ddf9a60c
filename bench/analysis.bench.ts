/**
 * Vision throughput on this machine. Run: npx tsx bench/analysis.bench.ts [photos=50] [threads=1,2]
 * Prints model load time, photos/s for the full analysis (embedding + detectors) on one thread and
 * with N worker threads (each its own engine: tfjs-wasm runs one inference at a time per thread),
 * and the reference set's leave-one-out accuracy recorded by scripts/build-reference-embeddings.ts.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createVisionEngine } from '../src/server/features/analysis/vision/engine';
import { fromRoot } from '../src/server/lib/paths';

const here = fileURLToPath(import.meta.url);

async function realPhotos(n: number): Promise<string[]> {
  const files: string[] = [];
  for (const set of ['reference-photos', 'eval-photos']) {
    const root = fromRoot('assets', set);
    for (const c of (await readdir(root, { withFileTypes: true })).filter((d) => d.isDirectory())) {
      for (const f of await readdir(path.join(root, c.name))) files.push(path.join(root, c.name, f));
    }
  }
  // Spread over categories, deterministic.
  const step = Math.max(1, Math.floor(files.length / n));
  return files.filter((_, i) => i % step === 0).slice(0, n);
}

if (!isMainThread) {
  const { files } = workerData as { files: string[] };
  const engine = createVisionEngine();
  const t0 = performance.now();
  await engine.load();
  parentPort!.postMessage({ type: 'loaded', ms: performance.now() - t0 });
  parentPort!.on('message', async (m: { type: string }) => {
    if (m.type !== 'go') return;
    for (const f of files) await engine.analyze(await readFile(f));
    parentPort!.postMessage({ type: 'done' });
  });
} else {
  const n = Number(process.argv[2] ?? 50);
  const threadCounts = (process.argv[3] ?? '1,2').split(',').map(Number);
  const files = await realPhotos(n);
  const ref = JSON.parse(await readFile(fromRoot('assets', 'reference-embeddings.json'), 'utf8')) as {
    leaveOneOut?: { accuracy: number; coverage: number; acceptedAccuracy: number; photos: number };
  };
  console.log(`photos: ${files.length} real photos from assets/reference-photos and assets/eval-photos`);

  // In-process engine (what the server's worker runs).
  const engine = createVisionEngine();
  let t = performance.now();
  await engine.load();
  console.log(`model load (embedder + detectors + centroids): ${(performance.now() - t).toFixed(0)} ms`);
  const buffers = await Promise.all(files.map((f) => readFile(f)));
  let embedMs = 0;
  let detectMs = 0;
  t = performance.now();
  for (const b of buffers) {
    const r = await engine.analyze(b);
    embedMs += r.embeddingMs;
    detectMs += r.detectMs;
  }
  const single = (performance.now() - t) / 1000;
  console.log(
    `1 thread, in process: ${(files.length / single).toFixed(2)} photos/s ` +
      `(embedding ${(embedMs / files.length).toFixed(0)} ms, detectors ${(detectMs / files.length).toFixed(0)} ms per photo)`,
  );

  for (const threads of threadCounts.filter((x) => x > 1)) {
    const parts = Array.from({ length: threads }, (_, i) => files.filter((_, j) => j % threads === i));
    // Worker threads do not inherit tsx's loader; register it inside the thread, then load this file.
    const boot = `import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(pathToFileURL(here).href)}); })`;
    const workers = parts.map((p) => new Worker(boot, { eval: true, workerData: { files: p } }));
    const loads = await Promise.all(
      workers.map(
        (w) =>
          new Promise<number>((res, rej) => {
            w.once('error', rej);
            w.on('message', (m: { type: string; ms: number }) => m.type === 'loaded' && res(m.ms));
          }),
      ),
    );
    t = performance.now();
    await Promise.all(
      workers.map(
        (w) =>
          new Promise<void>((res) => {
            w.on('message', (m: { type: string }) => m.type === 'done' && res());
            w.postMessage({ type: 'go' });
          }),
      ),
    );
    const secs = (performance.now() - t) / 1000;
    console.log(
      `${threads} worker threads: ${(files.length / secs).toFixed(2)} photos/s (load ${loads.map((x) => x.toFixed(0)).join(' / ')} ms)`,
    );
    await Promise.all(workers.map((w) => w.terminate()));
  }

  if (ref.leaveOneOut) {
    const l = ref.leaveOneOut;
    console.log(
      `reference set leave-one-out (${l.photos} photos): ${(l.accuracy * 100).toFixed(1)} % nearest-centroid; ` +
        `at the chosen margin ${(l.coverage * 100).toFixed(1)} % categorised, ${(l.acceptedAccuracy * 100).toFixed(1)} % of those right`,
    );
  }
}
