/**
 * Pooling, feature and classifier candidates (branch acc7b), measured on the TUNING part only (the
 * test part is dropped before anything is computed) by the same 5-fold cross-validation, folds and
 * nested abstain threshold as scripts/classifier-candidates.ts: each candidate's out-of-fold
 * probabilities go through the engine's decision (hand-written detector rules, one threshold), the
 * threshold chosen on four folds' out-of-fold answers and applied to the fifth.
 *
 * Candidates: poolings that keep layout (2x2 grid, top/bottom halves) or the strongest response
 * (max) beside the global mean; earlier, more general blocks (mixed5-7); hand-made colour and edge
 * statistics beside the embedding (given more weight than one embedding value each); label
 * smoothing; averages of probes over different feature sets.
 *
 * Run after vision-features-pooled.ts:
 *   nice -n 5 npx tsx scripts/classifier-candidates-pooled.ts [featureDir] [name filter (regexp)]
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PHOTO_CATEGORIES, type CategoryResult } from '../src/domain/photo-categories';
import {
  categoryIndex,
  decideFromProbabilities,
  looksLikePeople,
  predictProbe,
  trainProbe,
  type TrainingRow,
} from '../src/server/features/analysis/index';
import {
  FOLDS,
  foldOf as fold,
  groupMatrix,
  loadFeatureCache,
  nestedFigures,
  pct,
  probeAccuracy,
  ruledAnswer,
  scorer,
  secondsSince,
  tuningPart,
} from './lib/cross-validation';
import { chooseBuildThresholds, writeReferenceFile } from './lib/reference-build';
import type { PooledIndex } from './vision-features-pooled';

const featureDir = process.argv[2] ?? '/tmp/eyevu-vision-pooled';
const filter = process.argv[3] ? new RegExp(process.argv[3]) : undefined;

const { index, all } = await loadFeatureCache<PooledIndex>(featureDir);
const offsetOf = new Map<string, { at: number; dims: number }>();
{
  let at = 0;
  for (const f of index.features) {
    offsetOf.set(f.name, { at, dims: f.dims });
    at += f.dims;
  }
}
const tune = tuningPart(index.entries);

/** A feature group and how much say each of its values gets after standardisation. */
interface Group {
  name: string;
  weight?: number;
}
interface Candidate {
  name: string;
  groups: Group[];
  l2: number;
  smoothing?: number;
}

function matrix(groups: readonly Group[]): { X: Float32Array[]; weights: Float32Array } {
  const parts = groups.map((g) => {
    const f = offsetOf.get(g.name);
    if (!f) throw new Error(`no feature group ${g.name} in the cache`);
    const values = (e: (typeof tune)[number]) =>
      all.subarray(e.row * index.width + f.at, e.row * index.width + f.at + f.dims);
    return { dims: f.dims, weight: g.weight ?? 1, values };
  });
  return groupMatrix(tune, parts);
}

/** The probe's training for every candidate: shipped settings, plus the candidate's input weights and smoothing. */
const probeOptions = (c: Candidate, weights: Float32Array): Parameters<typeof trainProbe>[1] => ({
  l2: c.l2,
  iterations: 150,
  learningRate: 0.01,
  balanced: true,
  inputWeights: weights.some((w) => w !== 1) ? weights : undefined,
  labelSmoothing: c.smoothing,
});

function outOfFold(c: Candidate): number[][] {
  const { X, weights } = matrix(c.groups);
  const probs: number[][] = new Array(tune.length);
  for (let f = 0; f < FOLDS; f++) {
    const rows: TrainingRow[] = tune.flatMap((e, i) =>
      fold(e.file) === f ? [] : [{ x: X[i], y: categoryIndex(e.category) }],
    );
    const model = trainProbe(rows, probeOptions(c, weights));
    tune.forEach((e, i) => {
      if (fold(e.file) === f) probs[i] = predictProbe(model, X[i]);
    });
  }
  return probs;
}

const answer = (p: readonly number[], i: number, threshold: number): CategoryResult =>
  ruledAnswer(p, threshold, tune[i]!);
const { nested } = scorer(tune);
/** The detector rules on the probe's answer without abstaining. */
const rulesShare = (probs: number[][]): number =>
  tune.filter((e, i) => answer(probs[i]!, i, 0) === e.category).length / tune.length;

const t0 = performance.now();
const report = (name: string, probs: number[][]): void => {
  console.log(
    `${name.padEnd(52)} probe ${pct(probeAccuracy(probs, tune))} | rules ${pct(rulesShare(probs))} | ` +
      `nested: ${nestedFigures(nested(probs))}  (${secondsSince(t0)} s)`,
  );
};

const mean = (g: string): Group[] => [{ name: `${g}/mean` }];
const base: Candidate = {
  name: 'mixed8+mixed9 mean, l2 0.3 (shipped)',
  groups: [...mean('mixed8'), ...mean('mixed9')],
  l2: 0.3,
};
const hand = (weight: number): Group => ({ name: 'handmade', weight });
const candidates: Candidate[] = [
  base,
  // 1. layout and strongest response
  { name: 'mixed8+9 mean + max', groups: [...base.groups, { name: 'mixed8/max' }, { name: 'mixed9/max' }], l2: 0.3 },
  {
    name: 'mixed8+9 mean + halves',
    groups: [...base.groups, { name: 'mixed8/halves' }, { name: 'mixed9/halves' }],
    l2: 0.3,
  },
  {
    name: 'mixed8+9 mean + halves, l2 1',
    groups: [...base.groups, { name: 'mixed8/halves' }, { name: 'mixed9/halves' }],
    l2: 1,
  },
  { name: 'mixed8+9 grid2 (no mean)', groups: [{ name: 'mixed8/grid2' }, { name: 'mixed9/grid2' }], l2: 0.3 },
  {
    name: 'mixed8+9 mean + grid2, l2 1',
    groups: [...base.groups, { name: 'mixed8/grid2' }, { name: 'mixed9/grid2' }],
    l2: 1,
  },
  { name: 'mixed8+9 mean + mixed8 grid2', groups: [...base.groups, { name: 'mixed8/grid2' }], l2: 0.3 },
  { name: 'mixed8+9 mean + mixed7 halves', groups: [...base.groups, { name: 'mixed7/halves' }], l2: 0.3 },
  // 2. earlier blocks
  { name: 'mixed7+8+9 mean', groups: [...mean('mixed7'), ...base.groups], l2: 0.3 },
  { name: 'mixed6+7+8+9 mean', groups: [...mean('mixed6'), ...mean('mixed7'), ...base.groups], l2: 0.3 },
  {
    name: 'mixed5..9 mean',
    groups: [...mean('mixed5'), ...mean('mixed6'), ...mean('mixed7'), ...base.groups],
    l2: 0.3,
  },
  { name: 'mixed7+8 mean (cut after mixed8)', groups: [...mean('mixed7'), ...mean('mixed8')], l2: 0.3 },
  {
    name: 'mixed6+7+8 mean (cut after mixed8)',
    groups: [...mean('mixed6'), ...mean('mixed7'), ...mean('mixed8')],
    l2: 0.3,
  },
  { name: 'mixed8 mean (cut after mixed8)', groups: mean('mixed8'), l2: 0.3 },
  // 3. hand-made statistics
  { name: 'mixed8+9 mean + handmade x1', groups: [...base.groups, hand(1)], l2: 0.3 },
  { name: 'mixed8+9 mean + handmade x3', groups: [...base.groups, hand(3)], l2: 0.3 },
  { name: 'mixed8+9 mean + handmade x8', groups: [...base.groups, hand(8)], l2: 0.3 },
  // Second batch (after the first's figures): around the best of the first, mixed5..9.
  ...[0.1, 1].map((l2) => ({
    name: `mixed5..9 mean, l2 ${l2}`,
    groups: ['mixed5', 'mixed6', 'mixed7', 'mixed8', 'mixed9'].flatMap(mean),
    l2,
  })),
  {
    name: 'mixed5..9 mean + handmade x3',
    groups: [...['mixed5', 'mixed6', 'mixed7', 'mixed8', 'mixed9'].flatMap(mean), hand(3)],
    l2: 0.3,
  },
  // 4. training
  { ...base, name: 'mixed8+9 mean, label smoothing 0.1', smoothing: 0.1 },
];

const oof = new Map<string, number[][]>();
const get = (name: string): number[][] | undefined => oof.get(name);
console.log(`tuning part: ${tune.length} photos; ${FOLDS}-fold cross-validation; nested threshold`);
// Out-of-fold probabilities are kept (OOF_DIR), so that two processes can share the candidates and
// the averages can be scored from both without training anything again.
const oofDir = process.env.OOF_DIR ?? path.join(featureDir, 'oof');
await mkdir(oofDir, { recursive: true });
const oofFile = (name: string) => path.join(oofDir, `${name.replace(/[^a-z0-9]+/gi, '_')}.json`);
for (const c of candidates) {
  if (filter && !filter.test(c.name) && c !== base) continue;
  const kept = await readFile(oofFile(c.name), 'utf8').catch(() => undefined);
  const probs = kept ? (JSON.parse(kept) as number[][]) : outOfFold(c);
  if (!kept) await writeFile(oofFile(c.name), JSON.stringify(probs));
  oof.set(c.name, probs);
  report(c.name, probs);
}
for (const c of candidates) {
  if (oof.has(c.name)) continue;
  const kept = await readFile(oofFile(c.name), 'utf8').catch(() => undefined);
  if (kept) oof.set(c.name, JSON.parse(kept) as number[][]);
}
const avg = (...ps: number[][][]): number[][] =>
  ps[0]!.map((_, i) => ps[0]![i]!.map((__, k) => ps.reduce((a, p) => a + p[i]![k]!, 0) / ps.length));
const ensembles: [string, string[]][] = [
  ['average: shipped + mixed7+8+9', [base.name, 'mixed7+8+9 mean']],
  ['average: shipped + mixed8+9 grid2', [base.name, 'mixed8+9 grid2 (no mean)']],
  ['average: shipped + mean+max', [base.name, 'mixed8+9 mean + max']],
  ['average: shipped + mixed6+7+8', [base.name, 'mixed6+7+8 mean (cut after mixed8)']],
  ['average: shipped + handmade x3', [base.name, 'mixed8+9 mean + handmade x3']],
  ['average: shipped + grid2 + mixed7+8+9', [base.name, 'mixed8+9 grid2 (no mean)', 'mixed7+8+9 mean']],
  ['average: shipped + mixed5..9', [base.name, 'mixed5..9 mean']],
  ['average: mixed5..9 + mixed8+9 mean + handmade x3', ['mixed5..9 mean', 'mixed8+9 mean + handmade x3']],
];
for (const [name, members] of ensembles) {
  const ps = members.map(get);
  if (ps.every((p) => p !== undefined)) report(name, avg(...(ps as number[][][])));
}

// BUILD="<candidate name>": train that candidate on the whole tuning part and write a reference file
// (VISION_OUT, default assets/reference-embeddings.json) the engine reads, with the abstain threshold
// and the detector skip chosen as build-reference-embeddings.ts chooses them (steps 3 and 4, on the
// candidate's out-of-fold answers). VISION_SCORE_TEST=1 then scores the test part once from the
// cached features; every such look is to be counted in bench/README.md.
const buildName = process.env.BUILD;
if (buildName) {
  const c = candidates.find((x) => x.name === buildName);
  const probs = oof.get(buildName);
  if (!c || !probs) throw new Error(`BUILD: no candidate (or no out-of-fold answers) named ${buildName}`);
  const chosen = chooseBuildThresholds(probs, tune, (i, t) => answer(probs[i]!, i, t));
  const { minConfidence, detectorSkipConfidence } = chosen;
  console.log(`BUILD ${buildName}: ${chosen.summary}`);
  const { X, weights } = matrix(c.groups);
  const model = trainProbe(
    tune.map((e, i) => ({ x: X[i], y: categoryIndex(e.category) })),
    probeOptions(c, weights),
  );
  const features = c.groups.map((g) => g.name);
  const layers = features
    .flatMap((f) => (f === 'handmade' ? [] : [f.split('/')[0]!]))
    .filter((b, i, a) => a.indexOf(b) === i);
  const outPath = await writeReferenceFile({
    candidate: c.name,
    features,
    layers,
    inputSize: index.inputSize,
    l2: c.l2,
    tune,
    model,
    chosen,
    figures: {
      probeAccuracy: probeAccuracy(probs, tune),
      rulesAccuracy: rulesShare(probs),
      nestedAccuracy: nested(probs).right,
    },
  });
  console.log(`wrote ${outPath}`);
  if (process.env.VISION_SCORE_TEST === '1') {
    const test = index.entries.filter((e) => e.set === 'test');
    const rows = test.map((e) => {
      const v = new Float32Array(model.mean.length);
      let at = 0;
      for (const g of c.groups) {
        const f = offsetOf.get(g.name)!;
        v.set(all.subarray(e.row * index.width + f.at, e.row * index.width + f.at + f.dims), at);
        at += f.dims;
      }
      const p = predictProbe(model, v);
      const skip = Math.max(...p) >= detectorSkipConfidence && !looksLikePeople(decideFromProbabilities(p, 0));
      const got: CategoryResult = skip
        ? decideFromProbabilities(p, minConfidence).category
        : ruledAnswer(p, minConfidence, e);
      return { file: e.file, want: e.category, got };
    });
    const given = rows.filter((r) => r.got !== 'uncategorized').length;
    const right = rows.filter((r) => r.got === r.want).length;
    console.log(
      `TEST whole: ${rows.length} photos, right ${pct(right / rows.length)}, uncategorized ${pct(1 - given / rows.length)}, ` +
        `precision ${pct(right / Math.max(given, 1))}; ` +
        PHOTO_CATEGORIES.map(
          (k) =>
            `${k} ${rows.filter((r) => r.want === k && r.got === k).length}/${rows.filter((r) => r.want === k).length}`,
        ).join(', '),
    );
  }
}
