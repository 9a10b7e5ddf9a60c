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
 *   - one abstain threshold against one per category;
 *   - the probe averaged with a k-nearest-neighbour vote (acc10).
 *
 * Run after vision-features.ts (VISION_VIEWS=orig,flip for the mirrored candidates):
 *   npx tsx scripts/classifier-candidates.ts [featureDir]
 * CANDIDATES=<text> runs only the candidates whose name holds it; VISION_WRONG_COSTS=2,1.5,1 also
 * scores each candidate with the threshold chosen at each of those costs of a wrong answer (the
 * utility right - cost x wrong; VISION_WRONG_COST, one value, sets the cost of every other line).
 */
import { PHOTO_CATEGORIES, type PhotoCategory } from '../src/domain/photo-categories';
import { categoryIndex, predictProbe, trainProbe, type TrainingRow } from '../src/server/features/analysis/index';
import {
  FOLDS,
  THRESHOLD_GRID,
  blockVector,
  foldOf as fold,
  loadBlockCache,
  nestedFigures,
  pct,
  probeAccuracy,
  scorer,
  secondsSince,
  tuningPart,
  wrongCostFrom,
} from './lib/cross-validation';
import { neighbourModel } from './lib/neighbours';

const featureDir = process.argv[2] ?? '/tmp/eyevu-vision-features';

const cache = await loadBlockCache(featureDir);
const tune = tuningPart(cache.index.entries);
const hasFlip = tune.every((e) => e.rows.flip !== undefined);
const vectorOf = (row: number, layers: readonly string[], unitBlocks: boolean): Float32Array =>
  blockVector(cache, row, layers, unitBlocks);

interface Candidate {
  name: string;
  layers: string[];
  l2: number;
  iterations?: number;
  balanced?: boolean;
  unitBlocks?: boolean;
  flipTrain?: boolean;
  flipPredict?: boolean;
  /** The probe's probabilities averaged with a k-nearest-neighbour vote (scripts/lib/neighbours.ts). */
  knn?: { k: number; weight: number };
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
    const knn = c.knn
      ? neighbourModel(
          tune.flatMap((e, i) => (fold(e.file) === f ? [] : [{ x: X[i], y: categoryIndex(e.category) }])),
          PHOTO_CATEGORIES.length,
        )
      : undefined;
    tune.forEach((e, i) => {
      if (fold(e.file) !== f) return;
      const p = predictProbe(model, X[i]);
      const probe = c.flipPredict ? p.map((v, k) => (v + predictProbe(model, F[i])[k]) / 2) : p;
      if (!knn || !c.knn) probs[i] = probe;
      else {
        const { k, weight } = c.knn;
        const votes = knn.vote(X[i], k);
        probs[i] = probe.map((v, j) => (1 - weight) * v + weight * votes[j]!);
      }
    });
  }
  return probs;
}

type Thresholds = Record<PhotoCategory, number>;
const uniform = (t: number): Thresholds => Object.fromEntries(PHOTO_CATEGORIES.map((c) => [c, t])) as Thresholds;

const { score, utility, chooseThreshold: chooseGlobal, nested } = scorer(tune);
/** Coordinate ascent from the best single threshold, one category at a time, two sweeps. */
function choosePerCategory(probs: number[][], idx: number[]): Thresholds {
  const th = uniform(chooseGlobal(probs, idx));
  let bestU = utility(score(probs, idx, th));
  for (let sweep = 0; sweep < 2; sweep++) {
    for (const c of PHOTO_CATEGORIES) {
      for (const t of THRESHOLD_GRID) {
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
  { ...base, name: 'shipped + 10-neighbour vote, weight 0.5', knn: { k: 10, weight: 0.5 } },
  { ...base, name: 'shipped + 5-neighbour vote, weight 0.5', knn: { k: 5, weight: 0.5 } },
  { ...base, name: 'shipped + 10-neighbour vote, weight 0.3', knn: { k: 10, weight: 0.3 } },
];
const t0 = performance.now();
const oof = new Map<string, number[][]>();
const report = (name: string, probs: number[][], perCategory = false): void => {
  const one = nested(probs, chooseGlobal);
  console.log(
    `${name.padEnd(48)} probe ${pct(probeAccuracy(probs, tune))} | nested: ${nestedFigures(one)}  (${secondsSince(t0)} s)`,
  );
  if (perCategory) {
    const per = nested(probs, choosePerCategory);
    console.log(`${'  threshold per category'.padEnd(48)}                nested: ${nestedFigures(per)}`);
  }
  for (const cost of costs) {
    const at = scorer(tune, cost);
    const figures = at.nested(probs, at.chooseThreshold);
    console.log(
      `${`  threshold at wrong answer cost ${cost}`.padEnd(48)}                nested: ${nestedFigures(figures)}`,
    );
  }
};
const costs = (process.env.VISION_WRONG_COSTS?.split(',') ?? []).map(wrongCostFrom);
const only = process.env.CANDIDATES;
for (const c of candidates.filter((x) => !only || x.name.includes(only))) {
  const probs = outOfFold(c);
  oof.set(c.name, probs);
  report(c.name, probs, c === base);
}
// Two probes averaged: a candidate only if each alone is close to the best.
const mean = (a: number[][], b: number[][]): number[][] => a.map((p, i) => p.map((v, k) => (v + b[i][k]) / 2));
const average = (name: string, a: string, b: string): void => {
  const pa = oof.get(a);
  const pb = oof.get(b);
  if (pa && pb) report(name, mean(pa, pb));
};
average('average: mixed8+mixed9 and mixed8+9+10', base.name, 'mixed8+9+10 l2 0.3');
average('average: shipped and mirrored-rows probe', base.name, 'mixed8+mixed9 + mirrored training rows');
