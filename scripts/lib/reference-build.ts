/**
 * The BUILD step the candidate scripts share (classifier-candidates-pooled.ts,
 * classifier-candidates-coco.ts): a candidate's abstain threshold and detector skip chosen on its
 * out-of-fold answers as build-reference-embeddings.ts chooses them, and the reference file the
 * engine reads. One copy, so a candidate built by either script is chosen and written the same way.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PHOTO_CATEGORIES, type CategoryResult } from '../../src/domain/photo-categories';
import { decideFromProbabilities, looksLikePeople, type ProbeModel } from '../../src/server/features/analysis/index';
import { projectRoot } from '../../src/server/lib/paths.js';
import { FOLDS, MAX_ABSTAIN, pct, type LabelledEntry } from './cross-validation';

/** Skip thresholds tried, lowest first: the detectors are skipped above the first that loses nothing. */
const SKIPS = [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.99];

/**
 * The threshold with the best right - 2 x wrong that abstains on at most MAX_ABSTAIN of the tuning
 * part, then the lowest probe confidence above which skipping the detectors loses no right answer.
 * `answer(i, t)` is the engine's answer for tuning photo i at threshold t.
 */
export function chooseBuildThresholds(
  probs: readonly (readonly number[])[],
  tune: readonly LabelledEntry[],
  answer: (i: number, threshold: number) => CategoryResult,
) {
  const outcome = (t: number) => {
    const got = tune.map((_, i) => answer(i, t));
    const given = got.filter((g) => g !== 'uncategorized').length;
    const right = got.filter((g, i) => g === tune[i]!.category).length;
    return { right, given, wrong: given - right };
  };
  let minConfidence = 0;
  let bestU = -Infinity;
  for (const t of [0, ...probs.map((p) => Math.max(...p))].sort((a, b) => a - b)) {
    const o = outcome(t);
    if (1 - o.given / tune.length > MAX_ABSTAIN) break;
    if (o.right - 2 * o.wrong > bestU) [bestU, minConfidence] = [o.right - 2 * o.wrong, t];
  }
  const skipAnswer = (i: number, skipAt: number): CategoryResult => {
    const p = probs[i]!;
    return Math.max(...p) >= skipAt && !looksLikePeople(decideFromProbabilities(p, 0))
      ? decideFromProbabilities(p, minConfidence).category
      : answer(i, minConfidence);
  };
  const rightWith = (skipAt: number) => tune.filter((e, i) => skipAnswer(i, skipAt) === e.category).length;
  const every = rightWith(1.01);
  const detectorSkipConfidence = SKIPS.find((t) => rightWith(t) >= every) ?? 1.01;
  const o = outcome(minConfidence);
  const skipped = probs.filter((p) => Math.max(...p) >= detectorSkipConfidence).length / tune.length;
  return {
    minConfidence,
    detectorSkipConfidence,
    outcome: o,
    summary:
      `threshold ${minConfidence.toFixed(3)}: right ${pct(o.right / tune.length)}, ` +
      `uncategorized ${pct(1 - o.given / tune.length)}, precision ${pct(o.right / Math.max(o.given, 1))}; ` +
      `detectors skipped at p >= ${detectorSkipConfidence} (${pct(skipped)} of photos by the probe alone)`,
  };
}

const round = (x: number): number => Math.round(x * 1e6) / 1e6;

/**
 * Writes the reference file of a probe trained on the whole tuning part (VISION_OUT, default
 * assets/reference-embeddings.json), with its cross-validated figures.
 */
export async function writeReferenceFile(r: {
  candidate: string;
  features: readonly string[];
  layers: readonly string[];
  inputSize: number;
  l2: number;
  tune: readonly LabelledEntry[];
  model: ProbeModel;
  chosen: ReturnType<typeof chooseBuildThresholds>;
  figures: { probeAccuracy: number; rulesAccuracy: number; nestedAccuracy: number };
}): Promise<string> {
  const { outcome: o, minConfidence, detectorSkipConfidence } = r.chosen;
  const n = r.tune.length;
  const file = {
    model: 'nsfwjs/inception_v3',
    layers: r.layers,
    features: r.features,
    // The product engine refuses feature groups since the tenth session: a file for scripts only.
    layer: r.features.join('+') + ' (feature groups)',
    dims: r.model.mean.length,
    inputSize: r.inputSize,
    categories: PHOTO_CATEGORIES,
    trainedOn: { photos: n, augment: false, l2: r.l2, split: 'tune', candidate: r.candidate },
    crossValidation: {
      folds: FOLDS,
      probeAccuracy: round(r.figures.probeAccuracy),
      rulesAccuracy: round(r.figures.rulesAccuracy),
      accuracy: o.right / n,
      abstained: 1 - o.given / n,
      precision: o.right / Math.max(o.given, 1),
      nestedAccuracy: round(r.figures.nestedAccuracy),
    },
    detectorRules: true,
    minConfidence: round(minConfidence),
    detectorSkipConfidence,
    embedding: {
      mean: r.model.mean.map(round),
      scale: r.model.scale.map(round),
      weights: r.model.weights.map((row) => row.map(round)),
      bias: r.model.bias.map(round),
    },
  };
  const outPath = process.env.VISION_OUT ?? path.join(projectRoot, 'assets', 'reference-embeddings.json');
  await writeFile(outPath, JSON.stringify(file) + '\n');
  return outPath;
}
