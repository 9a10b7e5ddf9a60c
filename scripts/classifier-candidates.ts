/**
 * Measures classifier candidates beyond build-reference-embeddings.ts' own search, on the TUNING
 * part only (the test part is dropped before anything is computed), by the same 5-fold
 * cross-validation and folds. Nothing here is written to the reference file: it prints figures
 * that decide whether a candidate is worth building into the engine.
 *
 *   - probe training: more steps (300 instead of 150), and without class balancing;
 *   - the abstain threshold: one for all categories (as shipped) against one per category. Both
 *     are chosen on four folds' out-of-fold answers and applied to the fifth (nested), so the
 *     per-category variant, which has six times the freedom, is not credited with fitting noise.
 *
 * Run after vision-features.ts: npx tsx scripts/classifier-candidates.ts [featureDir] [layers] [l2]
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
const layers = (process.argv[3] ?? 'mixed8,mixed9').split(',');
const l2 = Number(process.argv[4] ?? 0.3);

const index = JSON.parse(await readFile(path.join(featureDir, 'index.json'), 'utf8')) as FeatureIndex;
const raw = await readFile(path.join(featureDir, 'emb.f32'));
const all = new Float32Array(raw.buffer, raw.byteOffset, raw.byteLength / 4);
const width = index.dims.reduce((a, b) => a + b, 0);
const offsets = index.dims.map((_, i) => index.dims.slice(0, i).reduce((a, b) => a + b, 0));
const tune = index.entries.filter((e) => e.set === 'tune' || e.set === 'demo');
const fold = (file: string): number => Math.floor(fnv1a(splitGroupKey(file)) / 10) % FOLDS;

function vectorOf(row: number): Float32Array {
  const out = new Float32Array(layers.reduce((a, l) => a + index.dims[index.layers.indexOf(l)], 0));
  let o = 0;
  for (const l of layers) {
    const i = index.layers.indexOf(l);
    out.set(all.subarray(row * width + offsets[i], row * width + offsets[i] + index.dims[i]), o);
    o += index.dims[i];
  }
  return out;
}
const X = tune.map((e) => vectorOf(e.rows.orig!));

function outOfFold(iterations: number, balanced: boolean): number[][] {
  const probs: number[][] = new Array(tune.length);
  for (let f = 0; f < FOLDS; f++) {
    const rows: TrainingRow[] = tune.flatMap((e, i) =>
      fold(e.file) !== f ? [{ x: X[i], y: categoryIndex(e.category) }] : [],
    );
    const model = trainProbe(rows, { l2, iterations, learningRate: 0.01, balanced });
    tune.forEach((e, i) => {
      if (fold(e.file) === f) probs[i] = predictProbe(model, X[i]);
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
  return `right ${pct(right / n)}, uncategorized ${pct(1 - given / n)}, precision ${pct(right / Math.max(given, 1))}`;
}

console.log(`tuning part: ${tune.length} photos; ${layers.join('+')} l2 ${l2}; ${FOLDS}-fold cross-validation`);
const t0 = performance.now();
for (const [iterations, balanced] of [
  [150, true],
  [300, true],
  [150, false],
] as const) {
  const probs = outOfFold(iterations, balanced);
  const acc = probs.filter((p, i) => argmax(p) === categoryIndex(tune[i].category)).length / tune.length;
  console.log(
    `probe ${iterations} steps${balanced ? '' : ', not class-balanced'}: probe alone ${pct(acc)}` +
      `  (${((performance.now() - t0) / 1000).toFixed(0)} s)`,
  );
  console.log(`  one threshold, nested:          ${nested(probs, chooseGlobal)}`);
  console.log(`  threshold per category, nested: ${nested(probs, choosePerCategory)}`);
  if (iterations === 150 && balanced) {
    const th = choosePerCategory(
      probs,
      tune.map((_, i) => i),
    );
    console.log(`  per-category thresholds on the whole tuning part: ${JSON.stringify(th)}`);
  }
}
