/**
 * Like vision-features.ts, for the pooling and feature candidates of scripts/classifier-candidates-pooled.ts:
 * runs InceptionV3 once per labelled photo (the engine's own 224 px input, original view only) and
 * caches, for each of blocks mixed5..mixed9, every pooling of lib/pooling.ts (global mean, max,
 * 2x2 grid, top/bottom halves), the hand-made statistics of lib/handmade.ts, and the
 * detectors' objects and faces. Pooling is computed from the block maps by the same functions the
 * engine would use, so a candidate chosen on this cache is what the engine computes.
 * Run: nice -n 5 npx tsx scripts/vision-features-pooled.ts [outDir=/tmp/eyevu-vision-pooled]
 * VISION_REUSE=<dir of an earlier run of this script>: detections (and features) of photos already there.
 */
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { projectRoot } from '../src/server/lib/paths.js';
import {
  EMBEDDING_INPUT,
  decodeForModels,
  ensureTfWasm,
  loadDetector,
  loadEmbedder,
  type Detections,
} from '../src/server/features/analysis/index';
import { poolBlock, type PoolKind } from './lib/pooling';
import { handmadeFeatures, HANDMADE_DIMS } from './lib/handmade';
import type { PhotoCategory } from '../src/domain/photo-categories';
import { featureRow, loadFeatureCache, writeFeatureCache } from './lib/cross-validation';
import { labelled } from './vision-features';

export const POOLED_BLOCKS = ['mixed5', 'mixed6', 'mixed7', 'mixed8', 'mixed9'] as const;
export const POOL_KINDS: readonly PoolKind[] = ['mean', 'max', 'grid2', 'halves'];

export interface PooledEntry {
  file: string;
  category: PhotoCategory;
  set: 'tune' | 'test' | 'demo';
  row: number;
  detections: Detections;
}

export interface PooledIndex {
  inputSize: number;
  /** Feature groups in row order: `<block>/<pooling>`, then `handmade`. */
  features: { name: string; dims: number }[];
  width: number;
  entries: PooledEntry[];
}

async function main(): Promise<void> {
  const outDir = process.argv[2] ?? '/tmp/eyevu-vision-pooled';
  const size = EMBEDDING_INPUT;
  await mkdir(outDir, { recursive: true });
  const reuse = process.env.VISION_REUSE ? await loadFeatureCache<PooledIndex>(process.env.VISION_REUSE) : undefined;
  await ensureTfWasm();
  const embedder = await loadEmbedder(undefined, ['mixed8', 'mixed9'], size, 'inception_v3', 'onnxruntime', [
    ...POOLED_BLOCKS,
  ]);
  if (!embedder.embedBatchWithMaps) throw new Error('ONNX Runtime is needed for block maps');
  let detector: Awaited<ReturnType<typeof loadDetector>> | undefined;
  const photos = await labelled();
  let features: PooledIndex['features'] | undefined;
  const rows: Float32Array[] = [];
  const entries: PooledEntry[] = [];
  const t0 = performance.now();
  let maxDiff = 0;
  for (const [i, p] of photos.entries()) {
    const old = reuse?.index.entries.find((e) => e.file === p.file);
    if (old && reuse) {
      rows.push(reuse.all.slice(old.row * reuse.index.width, (old.row + 1) * reuse.index.width));
      features ??= reuse.index.features;
      entries.push({ ...p, row: entries.length, detections: old.detections });
      continue;
    }
    const decoded = await decodeForModels(await readFile(path.join(projectRoot, p.file)), size);
    const [{ embedding, maps }] = await embedder.embedBatchWithMaps([decoded.embed]);
    const parts: { name: string; v: Float32Array }[] = [];
    for (const b of POOLED_BLOCKS) {
      const m = maps[b]!;
      for (const kind of POOL_KINDS) {
        parts.push({ name: `${b}/${kind}`, v: poolBlock(m.data, m.channels, m.height, m.width, kind) });
      }
    }
    // The pooled global mean must be the embedding the engine computes in its graph.
    const m8 = parts.find((x) => x.name === 'mixed8/mean')!.v;
    const m9 = parts.find((x) => x.name === 'mixed9/mean')!.v;
    [...m8, ...m9].forEach((v, j) => (maxDiff = Math.max(maxDiff, Math.abs(v - embedding[j]!))));
    parts.push({ name: 'handmade', v: handmadeFeatures(decoded.embed) });
    features ??= parts.map((x) => ({ name: x.name, dims: x.v.length }));
    rows.push(featureRow(parts));
    detector ??= await loadDetector();
    const detections = await detector.detect(decoded.detect);
    entries.push({ ...p, row: entries.length, detections });
    if (i % 25 === 0) console.log(`${i}/${photos.length} ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
  if (!features) throw new Error('no photos');
  const width = features.reduce((a, f) => a + f.dims, 0);
  if (features.at(-1)?.dims !== HANDMADE_DIMS) throw new Error('cache from another handmade feature set');
  const index: PooledIndex = { inputSize: size, features, width, entries };
  await writeFeatureCache(outDir, rows, width, index);
  console.log(
    `${entries.length} photos, ${width} values each -> ${outDir}; pooled mean vs the engine's embedding: max diff ${maxDiff.toExponential(2)}`,
  );
}

if (process.argv[1]?.endsWith('vision-features-pooled.ts')) await main();
