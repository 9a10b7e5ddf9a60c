import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PHOTO_CATEGORIES } from '@domain/photo-categories';
import { fromRoot } from '../../../lib/paths';
import { handmadeFeatures, HANDMADE_DIMS } from '../classifier/handmade';
import { predictProbe, type ProbeModel } from '../classifier/probe';
import { loadEmbedder } from './embedder';
import { createVisionEngine, decodeForModels } from './engine';
import { poolBlock } from './pooling';
import { ensureTfWasm } from './runtime';

/** A probe with fixed, varied weights over `d` inputs (its values do not matter, only that they are used). */
function probe(d: number): ProbeModel {
  return {
    mean: Array.from({ length: d }, (_, j) => (j % 7) / 10),
    scale: Array.from({ length: d }, (_, j) => 1 + (j % 3)),
    weights: PHOTO_CATEGORIES.map((_, k) => Array.from({ length: d }, (__, j) => Math.sin(k * 31 + j) / 20)),
    bias: PHOTO_CATEGORIES.map((_, k) => k / 10),
  };
}

describe('engine with a reference file that names feature groups (real InceptionV3)', () => {
  it(
    'the probe reads the named poolings and hand-made statistics, as the feature cache computes them',
    { timeout: 240_000 },
    async () => {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'eyevu-features-'));
      try {
        const features = ['mixed7/grid2', 'handmade', 'mixed7/max'];
        const dims = 4 * 768 + HANDMADE_DIMS + 768;
        const model = probe(dims);
        const ref = {
          model: 'nsfwjs/inception_v3',
          layers: ['mixed7'],
          features,
          dims,
          inputSize: 224,
          categories: PHOTO_CATEGORIES,
          minConfidence: 0,
          detectorRules: true,
          detectorSkipConfidence: 2,
          embedding: model,
        };
        const referencePath = path.join(dir, 'ref.json');
        await writeFile(referencePath, JSON.stringify(ref));
        const engine = createVisionEngine({ referencePath, detectors: false });
        const photo = await readFile(fromRoot('assets', 'demo-photos', 'picos-de-europa-mountains.jpg'));
        const got = await engine.analyze(photo);

        // The same groups computed the way scripts/vision-features-pooled.ts computes them.
        await ensureTfWasm();
        const decoded = await decodeForModels(photo);
        const e = await loadEmbedder(undefined, ['mixed7'], 224, 'inception_v3', 'onnxruntime', ['mixed7']);
        const [{ maps }] = await e.embedBatchWithMaps!([decoded.embed]);
        e.dispose();
        const m = maps.mixed7!;
        const want = Float32Array.from([
          ...poolBlock(m.data, m.channels, m.height, m.width, 'grid2'),
          ...handmadeFeatures(decoded.embed),
          ...poolBlock(m.data, m.channels, m.height, m.width, 'max'),
        ]);
        expect(got.embedding.length).toBe(dims);
        expect(Array.from(got.embedding)).toEqual(Array.from(want));
        const p = predictProbe(model, want);
        expect(got.classification.similarity).toBeCloseTo(Math.max(...p), 9);
        expect(got.classification.nearest).toBe(PHOTO_CATEGORIES[p.indexOf(Math.max(...p))]);

        // A file whose layers are not the blocks its features read is refused.
        await writeFile(referencePath, JSON.stringify({ ...ref, layers: ['mixed8'] }));
        await expect(createVisionEngine({ referencePath, detectors: false }).load()).rejects.toThrow(
          /layers are not the blocks its features read/,
        );
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});
