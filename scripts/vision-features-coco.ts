/**
 * Features from the COCO detector the engine already loads (CenterNet, shipped by @vladmandic/human:
 * a MobileNetV3 trained on ImageNet, then on COCO as the detector's backbone), for
 * scripts/classifier-candidates-coco.ts (branch acc8). Two runs of its network per labelled photo:
 *   - `bb224/*`: the backbone alone (network cut after `extern1`, its last map) on the embedding's own
 *     224 px input, i.e. the pixels InceptionV3 sees: cheap enough to run on every photo;
 *   - `cn512/*`: the whole detector at its 512 px input, as detectors.ts runs it (the same frame,
 *     resized by tfjs like Human): the backbone's last map, the detection head's last map (the one
 *     the class and size outputs read) and each COCO class's heat-map maximum.
 * Each map is reduced to one value per channel (global mean; for the heat map its maximum). The
 * CPU of each run is measured with process.cpuUsage (ONNX Runtime, one thread, as in the engine).
 * Only the tuning part and the demo library are embedded unless VISION_PARTS names `test` too.
 * Run: nice -n 5 npx tsx scripts/vision-features-coco.ts [outDir=/tmp/eyevu-vision-coco]
 */
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { InferenceSession } from 'onnxruntime-node';
import { projectRoot } from '../src/server/lib/paths.js';
import { decodeForModels, ensureTfWasm } from '../src/server/features/analysis/index';
import { loadOnnxRuntime } from '../src/server/features/analysis/vision/embedder';
import { readGraphModel } from '../src/server/features/analysis/vision/centernet';
import { graphToOnnx } from '../src/server/features/analysis/vision/graph-onnx';
import { channelMeans, loadCocoBackbone } from './lib/coco-backbone';
import { cpuMs as cpu, groupCacheWriter, median, type GroupCacheIndex } from './lib/cross-validation';
import { packageDir, tf } from '../src/server/features/analysis/vision/runtime';
import { labelled } from './vision-features';

const INPUT = 'tower_0/images';
/** The backbone's last map (coco-backbone.ts' `extern1`), for the 512 px run. */
const EXTERN1 = 'tower_0/extern1/hard_swish/mul_1';
/** The detection head's last map (before the class and size outputs) and the class heat map. */
const HEAD = 'tower_0/CenternetHead/mul';
const HEAT = 'tower_0/keypoints';

/** cpuMs: `bb224` (the backbone at 224 px) and `cn512` (the whole detector at 512 px). */
export type CocoIndex = GroupCacheIndex<Record<string, number>>;

/** Channels-last map [1, h, w, c] -> per-channel mean (as the engine computes it) or max. */
function reduce(data: Float32Array, dims: readonly number[], how: 'mean' | 'max'): Float32Array {
  const c = dims[3]!;
  if (how === 'mean') return channelMeans(data, c);
  const n = data.length / c;
  const out = new Float32Array(c).fill(-Infinity);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < c; k++) {
      const v = data[i * c + k]!;
      out[k] = Math.max(out[k]!, v);
    }
  }
  return out;
}

async function main(): Promise<void> {
  const outDir = process.argv[2] ?? '/tmp/eyevu-vision-coco';
  const parts = (process.env.VISION_PARTS ?? 'tune,demo').split(',');
  await mkdir(outDir, { recursive: true });
  await ensureTfWasm();
  const ort = await loadOnnxRuntime();
  if (!ort) throw new Error('onnxruntime-node is needed');
  const dir = path.join(packageDir('@vladmandic/human'), 'models');
  const { nodes, weights } = await readGraphModel(dir, 'centernet');
  const options: InferenceSession.SessionOptions = {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  };
  // The backbone at 224 px through the module an engine path would use (scripts/lib/coco-backbone.ts).
  const backbone = await loadCocoBackbone(ort, dir, ['extern1', 'expand14']);
  const full = await ort.InferenceSession.create(
    graphToOnnx(nodes, weights, {
      input: INPUT,
      inputShape: [1, 512, 512, 3],
      outputs: [EXTERN1, HEAD, HEAT],
    }),
    options,
  );
  const photos = (await labelled()).filter((p) => parts.includes(p.set));
  const cache = groupCacheWriter();
  const spent: Record<string, number[]> = { bb224: [], cn512: [] };
  const t0 = performance.now();
  for (const [i, p] of photos.entries()) {
    const decoded = await decodeForModels(await readFile(path.join(projectRoot, p.file)), 224);
    const groups: { name: string; v: Float32Array }[] = [];
    let c0 = cpu();
    const a = await backbone.means(decoded.embed);
    spent.bb224!.push(cpu() - c0);
    groups.push({ name: 'bb224/extern1', v: a.extern1 });
    groups.push({ name: 'bb224/expand14', v: a.expand14 });
    // The detector's own input: the decoded frame resized to 512 px by tfjs, as centernet.ts does.
    const frame = tf.tidy(() =>
      tf.image.resizeBilinear(
        tf.tensor3d(decoded.detect.data, [decoded.detect.height, decoded.detect.width, 3], 'int32').toFloat(),
        [512, 512],
      ),
    );
    const pixels = frame.dataSync() as Float32Array;
    frame.dispose();
    c0 = cpu();
    const b = await full.run({ pixels: new ort.Tensor('float32', pixels, [1, 512, 512, 3]) });
    spent.cn512!.push(cpu() - c0);
    groups.push({ name: 'cn512/extern1', v: reduce(b.output0!.data as Float32Array, b.output0!.dims, 'mean') });
    groups.push({ name: 'cn512/head', v: reduce(b.output1!.data as Float32Array, b.output1!.dims, 'mean') });
    groups.push({ name: 'cn512/heatmax', v: reduce(b.output2!.data as Float32Array, b.output2!.dims, 'max') });
    cache.add(p, groups);
    if (i % 50 === 0) console.log(`${i}/${photos.length} ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
  // The first runs plan memory and pick kernels: the median is the steady cost.
  const cpuMs = { bb224: median(spent.bb224!), cn512: median(spent.cn512!) };
  const index: CocoIndex = await cache.write(outDir, cpuMs);
  console.log(
    `${index.entries.length} photos, ${index.width} values each -> ${outDir}; CPU per photo (median): ` +
      `backbone at 224 px ${cpuMs.bb224.toFixed(1)} ms, whole detector at 512 px ${cpuMs.cn512.toFixed(1)} ms`,
  );
}

if (process.argv[1]?.endsWith('vision-features-coco.ts')) await main();
