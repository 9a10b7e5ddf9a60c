/**
 * Measures classifier candidates beyond build-reference-embeddings.ts' own search, on the TUNING
 * part only (the test part is dropped before anything is computed), by the same 5-fold
 * cross-validation and folds. Nothing here is written to the reference file: it prints figures
 * that decide whether a candidate is worth building into the engine.
 *
 * Every candidate gives out-of-fold probabilities for each tuning photo; each is then scored the
 * way the engine decides (the hand-written detector rules on the probe's answer, one abstain
 * threshold) with the threshold chosen on four folds' out-of-fold answers and applied to the fifth
 * (nested), so a candidate is not credited with a threshold fitted to the photos it is scored on.
 *
 *   - blocks and L2 (mixed8+mixed9 as shipped, the three blocks together, each block scaled to unit
 *     length before the probe);
 *   - mirrored views: as extra training rows, and averaged with the original at prediction
 *     (test-time augmentation: twice the embedding's CPU per photo);
 *   - an average of two probes on different blocks;
 *   - the probe's training (steps, class balancing);
 *   - one abstain threshold against one per category.
 *
 * Run after vision-features.ts (VISION_VIEWS=orig,flip for the mirrored candidates):
 *   npx tsx scripts/classifier-candidates.ts [featureDir]
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { PHOTO_CATEGORIES, type CategoryResult, type PhotoCategory } from '../src/domain/photo-categories';
import {
  analyzePhoto,
  categoryIndex,
  decideFromProbabilities,
  fnv1a,
  predictProbe,
  splitGroupKey,
  trainProbe,
  type TrainingRow,
} from '../src/server/features/analysis/index';
import type { FeatureIndex } from './vision-features';

const FOLDS = 5;
const MAX_ABSTAIN = 0.08;
const featureDir = process.argv[2] ?? '/tmp/eyevu-vision-features';

const index = JSON.parse(await readFile(path.join(featureDir, 'index.json'), 'utf8')) as FeatureIndex;
const raw = await readFile(path.join(featureDir, 'emb.f32'));
const all = new Float32Array(raw.buffer, raw.byteOffset, raw.byteLength / 4);
const width = index.dims.reduce((a, b) => a + b, 0);
const offsets = index.dims.map((_, i) => index.dims.slice(0, i).reduce((a, b) => a + b, 0));
// The test part is dropped here, before anything is computed.
const tune = index.entries.filter((e) => e.set === 'tune' || e.set === 'demo');
const fold = (file: string): number => Math.floor(fnv1a(splitGroupKey(file)) / 10) % FOLDS;
const hasFlip = tune.every((e) => e.rows.flip !== undefined);

function vectorOf(row: number, layers: readonly string[], unitBlocks: boolean): Float32Array {
  const out = new Float32Array(layers.reduce((a, l) => a + index.dims[index.layers.indexOf(l)], 0));
  let o = 0;
  for (const l of layers) {
    const i = index.layers.indexOf(l);
    const block = all.subarray(row * width + offsets[i], row * width + offsets[i] + index.dims[i]);
    let n = 1;
    if (unitBlocks) n = Math.sqrt(block.reduce((a, x) => a + x * x, 0)) || 1;
    for (let j = 0; j < block.length; j++) out[o + j] = block[j] / n;
    o += index.dims[i];
  }
  return out;
}

interface Candidate {
  name: string;
  layers: string[];
  l2: number;
  iterations?: number;
  balanced?: boolean;
  unitBlocks?: boolean;
  flipTrain?: boolean;
  flipPredict?: boolean;
}

function outOfFold(c: Candidate): number[][] {
  const X = tune.map((e) => vectorOf(e.rows.orig!, c.layers, c.unitBlocks === true));
  const F =
    c.flipTrain || c.flipPredict ? tune.map((e) => vectorOf(e.rows.flip!, c.layers, c.unitBlocks === true)) : [];
  const probs: number[][] = new Array(tune.length);
  for (let f = 0; f < FOLDS; f++) {
    const rows: TrainingRow[] = tune.flatMap((e, i) => {
      if (fold(e.file) === f) return [];
      const y = categoryIndex(e.category);
      return c.flipTrain
        ? [
            { x: X[i], y, weight: 0.5 },
            { x: F[i], y, weight: 0.5 },
          ]
        : [{ x: X[i], y }];
    });
    const model = trainProbe(rows, {
      l2: c.l2,
      iterations: c.iterations ?? 150,
      learningRate: 0.01,
      balanced: c.balanced ?? true,
    });
    tune.forEach((e, i) => {
      if (fold(e.file) !== f) return;
      const p = predictProbe(model, X[i]);
      probs[i] = c.flipPredict ? p.map((v, k) => (v + predictProbe(model, F[i])[k]) / 2) : p;
    });
  }
  return probs;
}

const argmax = (p: readonly number[]): number => p.indexOf(Math.max(...p));
const pct = (x: number): string => `${(x * 100).toFixed(1)} %`;

/** The engine's answer with the hand-written detector rules, abstaining below the threshold of the leading category. */
function answer(p: readonly number[], i: number, threshold: (c: PhotoCategory) => number): CategoryResult {
  return analyzePhoto({
    classification: decideFromProbabilities(p, threshold(PHOTO_CATEGORIES[argmax(p)])),
    objects: tune[i].detections.objects,
    faces: tune[i].detections.faces,
    colours: { brightness: 0.5, dominant: [], skyShare: 0 },
  }).category;
}

type Thresholds = Record<PhotoCategory, number>;
const uniform = (t: number): Thresholds => Object.fromEntries(PHOTO_CATEGORIES.map((c) => [c, t])) as Thresholds;

function score(probs: number[][], idx: number[], th: Thresholds) {
  let right = 0;
  let given = 0;
  for (const i of idx) {
    const got = answer(probs[i], i, (c) => th[c]);
    if (got !== 'uncategorized') given++;
    if (got === tune[i].category) right++;
  }
  return { right, given, wrong: given - right, n: idx.length };
}
const utility = (s: ReturnType<typeof score>): number =>
  1 - s.given / s.n > MAX_ABSTAIN ? -Infinity : s.right - 2 * s.wrong;

const GRID = Array.from({ length: 31 }, (_, k) => 0.2 + k * 0.02);
function chooseGlobal(probs: number[][], idx: number[]): Thresholds {
  let best = uniform(0);
  let bestU = utility(score(probs, idx, best));
  for (const t of GRID) {
    const u = utility(score(probs, idx, uniform(t)));
    if (u > bestU) [best, bestU] = [uniform(t), u];
  }
  return best;
}
/** Coordinate ascent from the best single threshold, one category at a time, two sweeps. */
function choosePerCategory(probs: number[][], idx: number[]): Thresholds {
  const th = { ...chooseGlobal(probs, idx) };
  let bestU = utility(score(probs, idx, th));
  for (let sweep = 0; sweep < 2; sweep++) {
    for (const c of PHOTO_CATEGORIES) {
      for (const t of GRID) {
        const trial = { ...th, [c]: t };
        const u = utility(score(probs, idx, trial));
        if (u > bestU) {
          bestU = u;
          th[c] = t;
        }
      }
    }
  }
  return th;
}

function nested(probs: number[][], choose: (p: number[][], idx: number[]) => Thresholds) {
  let right = 0;
  let given = 0;
  for (let f = 0; f < FOLDS; f++) {
    const inner = tune.map((_, i) => i).filter((i) => fold(tune[i].file) !== f);
    const outer = tune.map((_, i) => i).filter((i) => fold(tune[i].file) === f);
    const s = score(probs, outer, choose(probs, inner));
    right += s.right;
    given += s.given;
  }
  const n = tune.length;
  return { right: right / n, abstained: 1 - given / n, precision: right / Math.max(given, 1) };
}

console.log(`tuning part: ${tune.length} photos; ${FOLDS}-fold cross-validation; mirrored views cached: ${hasFlip}`);
const base: Candidate = { name: 'mixed8+mixed9 l2 0.3 (shipped)', layers: ['mixed8', 'mixed9'], l2: 0.3 };
const candidates: Candidate[] = [
  base,
  { ...base, name: 'mixed8+mixed9 l2 1', l2: 1 },
  { ...base, name: 'mixed8+9+10 l2 0.3', layers: ['mixed8', 'mixed9', 'mixed10'] },
  { ...base, name: 'mixed8+9+10 l2 1', layers: ['mixed8', 'mixed9', 'mixed10'], l2: 1 },
  { ...base, name: 'mixed8+mixed9 unit blocks', unitBlocks: true },
  { ...base, name: 'mixed8+mixed9 300 steps', iterations: 300 },
  { ...base, name: 'mixed8+mixed9 not class-balanced', balanced: false },
  ...(hasFlip
    ? [
        { ...base, name: 'mixed8+mixed9 + mirrored training rows', flipTrain: true },
        { ...base, name: 'mixed8+mixed9, mirror averaged at prediction', flipPredict: true },
        { ...base, name: 'mixed8+mixed9 mirrored rows + averaged', flipTrain: true, flipPredict: true },
      ]
    : []),
];
const t0 = performance.now();
const oof = new Map<string, number[][]>();
const report = (name: string, probs: number[][], perCategory = false): void => {
  const acc = probs.filter((p, i) => argmax(p) === categoryIndex(tune[i].category)).length / tune.length;
  const one = nested(probs, chooseGlobal);
  console.log(
    `${name.padEnd(48)} probe ${pct(acc)} | nested: right ${pct(one.right)}, uncategorized ${pct(one.abstained)}, ` +
      `precision ${pct(one.precision)}  (${((performance.now() - t0) / 1000).toFixed(0)} s)`,
  );
  if (perCategory) {
    const per = nested(probs, choosePerCategory);
    console.log(
      `${'  threshold per category'.padEnd(48)}                nested: right ${pct(per.right)}, ` +
        `uncategorized ${pct(per.abstained)}, precision ${pct(per.precision)}`,
    );
  }
};
for (const c of candidates) {
  const probs = outOfFold(c);
  oof.set(c.name, probs);
  report(c.name, probs, c === base);
}
// Two probes averaged: a candidate only if each alone is close to the best.
const mean = (a: number[][], b: number[][]): number[][] => a.map((p, i) => p.map((v, k) => (v + b[i][k]) / 2));
report('average: mixed8+mixed9 and mixed8+9+10', mean(oof.get(base.name)!, oof.get('mixed8+9+10 l2 0.3')!));
if (hasFlip)
  report(
    'average: shipped and mirrored-rows probe',
    mean(oof.get(base.name)!, oof.get('mixed8+mixed9 + mirrored training rows')!),
  );
