import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PHOTO_CATEGORIES } from '@domain/photo-categories';
import { fromRoot } from '../../../lib/paths';
import { predictProbe, type ProbeModel } from '../classifier/probe';
import { channelMeans, loadCocoBackbone } from './coco-backbone';
import { loadEmbedder, loadOnnxRuntime } from './embedder';
import { createVisionEngine, decodeForModels } from './engine';
import { ensureTfWasm, packageDir } from './runtime';

/** A probe with fixed, varied weights over `d` inputs (its values do not matter, only that they are used). */
function probe(d: number): ProbeModel {
  return {
    mean: Array.from({ length: d }, (_, j) => (j % 5) / 10),
    scale: Array.from({ length: d }, (_, j) => 1 + (j % 3)),
    weights: PHOTO_CATEGORIES.map((_, k) => Array.from({ length: d }, (__, j) => Math.cos(k * 17 + j) / 20)),
    bias: PHOTO_CATEGORIES.map((_, k) => k / 10),
  };
}

describe('engine with a reference file that names the COCO backbone (real InceptionV3 and CenterNet)', () => {
  it(
    'the probe reads the embedding and the COCO backbone on the same 224 px input, as the feature cache computes them',
    { timeout: 240_000 },
    async () => {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'eyevu-coco-'));
      try {
        const features = ['mixed8/mean', 'mixed9/mean', 'bb224/extern1'];
        const dims = 1280 + 2048 + 480;
        const model = probe(dims);
        const referencePath = path.join(dir, 'ref.json');
        await writeFile(
          referencePath,
          JSON.stringify({
            model: 'nsfwjs/inception_v3',
            layers: ['mixed8', 'mixed9'],
            features,
            dims,
            inputSize: 224,
            categories: PHOTO_CATEGORIES,
            minConfidence: 0,
            detectorRules: true,
            detectorSkipConfidence: 2,
            embedding: model,
          }),
        );
        const engine = createVisionEngine({ referencePath, detectors: false });
        const photo = await readFile(fromRoot('assets', 'demo-photos', 'picos-de-europa-mountains.jpg'));
        const got = await engine.analyze(photo);

        // What scripts/vision-features-pooled.ts and vision-features-coco.ts cache for the photo.
        await ensureTfWasm();
        const decoded = await decodeForModels(photo);
        const e = await loadEmbedder(undefined, ['mixed8', 'mixed9'], 224, 'inception_v3', 'onnxruntime');
        const embedding = await e.embed(decoded.embed);
        e.dispose();
        const ort = (await loadOnnxRuntime())!;
        const backbone = await loadCocoBackbone(ort, path.join(packageDir('@vladmandic/human'), 'models'), ['extern1']);
        const { extern1 } = await backbone.means(decoded.embed);
        await backbone.release();
        expect(got.embedding.length).toBe(dims);
        // The means pooled from the block maps match the graph's own pooling to float rounding.
        got.embedding.subarray(0, 3328).forEach((v, j) => expect(Math.abs(v - embedding[j]!)).toBeLessThan(1e-5));
        expect(Array.from(got.embedding.subarray(3328))).toEqual(Array.from(extern1));
        // A real photo excites the backbone: not a map of zeros or constants.
        expect(Math.max(...extern1) - Math.min(...extern1)).toBeGreaterThan(0.1);
        const p = predictProbe(model, got.embedding);
        expect(got.classification.similarity).toBeCloseTo(Math.max(...p), 9);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );

  it('averages each channel of a channels-last map', () => {
    // 2 x 2 positions, 3 channels.
    const map = Float32Array.from([1, 10, 0, 3, 20, 0, 5, 30, 0, 7, 40, 4]);
    expect(Array.from(channelMeans(map, 3))).toEqual([4, 25, 1]);
  });
});
