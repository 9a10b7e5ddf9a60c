/**
 * Branch acc8's candidates, measured on the TUNING part only by the cross-validation of
 * scripts/lib/cross-validation.ts (same folds, the engine's detector rules, the abstain threshold
 * chosen on four folds and applied to the fifth), so its first row reproduces the shipped figure:
 *   - CenterNet's own backbone (a COCO-trained MobileNetV3) and detection head, pooled
 *     (scripts/vision-features-coco.ts), concatenated with the shipped InceptionV3 embedding, each
 *     group given a weight per value after standardisation;
 *   - PCA whitening fitted on each fold's training rows before the shipped probe;
 *   - a one-hidden-layer MLP on the whitened components, its number of steps chosen inside the
 *     training folds (an inner split by group key, lowest validation loss).
 * Run after vision-features-pooled.ts and vision-features-coco.ts:
 *   nice -n 5 npx tsx scripts/classifier-candidates-coco.ts <pooled dir> <coco dir> [name filter (regexp)]
 * Out-of-fold answers are kept in <coco dir>/oof (OOF_DIR), so runs can share them.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  categoryIndex,
  fnv1a,
  predictProbe,
  splitGroupKey,
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
import { fitWhitening, standardiser, trainMlp } from './lib/mlp';
import { chooseBuildThresholds, writeReferenceFile } from './lib/reference-build';
import type { PooledIndex } from './vision-features-pooled';
import type { CocoIndex } from './vision-features-coco';

const pooledDir = process.argv[2] ?? '/tmp/eyevu-vision-pooled';
const cocoDir = process.argv[3] ?? '/tmp/eyevu-vision-coco';
const filter = process.argv[4] ? new RegExp(process.argv[4]) : undefined;

const pooled = await loadFeatureCache<PooledIndex>(pooledDir);
const coco = await loadFeatureCache<CocoIndex>(cocoDir);
const tune = tuningPart(pooled.index.entries);
const cocoRow = new Map(coco.index.entries.map((e) => [e.file, e.row]));
for (const e of tune) if (!cocoRow.has(e.file)) throw new Error(`no COCO features for ${e.file}`);

type Source = { index: { features: { name: string; dims: number }[]; width: number }; all: Float32Array };
const groupAt = (src: Source, name: string) => {
  let at = 0;
  for (const f of src.index.features) {
    if (f.name === name) return { at, dims: f.dims };
    at += f.dims;
  }
  return undefined;
};

interface Group {
  name: string;
  weight?: number;
}
type Model =
  | { kind: 'probe'; l2: number }
  | { kind: 'pca'; components: number; l2: number }
  | { kind: 'mlp'; components: number; hidden: number; l2: number };
interface Candidate {
  name: string;
  groups: Group[];
  model: Model;
}

/** Each tuning photo's concatenated groups, and the weight of each value. */
function matrix(groups: readonly Group[]): { X: Float32Array[]; weights: Float32Array } {
  const parts = groups.map((g) => {
    const fromCoco = /^(bb224|cn512)\//.test(g.name);
    const src: Source = fromCoco ? coco : pooled;
    const f = groupAt(src, g.name);
    if (!f) throw new Error(`no feature group ${g.name}`);
    const values = (e: (typeof tune)[number]) => {
      const start = (fromCoco ? cocoRow.get(e.file)! : e.row) * src.index.width + f.at;
      return src.all.subarray(start, start + f.dims);
    };
    return { dims: f.dims, weight: g.weight ?? 1, values };
  });
  return groupMatrix(tune, parts);
}

const PROBE = { iterations: 150, learningRate: 0.01, balanced: true } as const;
/** The MLP's early stopping: validation loss every 25 steps up to this many. */
const MLP_MAX_STEPS = 400;
const MLP_EVERY = 25;
/** Inner validation photos: another split of the group key than the folds', about one in five. */
const innerVal = (file: string): boolean => Math.floor(fnv1a(splitGroupKey(file)) / 50) % 5 === 0;

/** Probabilities for the `test` rows of a model trained on the `train` rows (indices into tune). */
function fitPredict(c: Candidate, X: Float32Array[], weights: Float32Array, train: number[], test: number[]) {
  const y = (i: number) => categoryIndex(tune[i]!.category);
  const m = c.model;
  if (m.kind === 'probe') {
    const rows: TrainingRow[] = train.map((i) => ({ x: X[i]!, y: y(i) }));
    const model = trainProbe(rows, {
      ...PROBE,
      l2: m.l2,
      inputWeights: weights.some((w) => w !== 1) ? weights : undefined,
    });
    return test.map((i) => predictProbe(model, X[i]!));
  }
  const std = standardiser(
    train.map((i) => X[i]!),
    weights,
  );
  const whitenOn = (idx: number[]) => {
    const S = idx.map((i) => std(X[i]!));
    const whiten = fitWhitening(S, m.components);
    return { whiten, Z: S.map(whiten) };
  };
  if (m.kind === 'pca') {
    const { whiten, Z } = whitenOn(train);
    const model = trainProbe(
      Z.map((z, r) => ({ x: z, y: y(train[r]!) })),
      { ...PROBE, l2: m.l2 },
    );
    return test.map((i) => predictProbe(model, whiten(std(X[i]!))));
  }
  // MLP: steps chosen on an inner split of the training rows, then trained on all of them.
  const inner = train.filter((i) => !innerVal(tune[i]!.file));
  const val = train.filter((i) => innerVal(tune[i]!.file));
  const a = whitenOn(inner);
  const valZ = val.map((i) => a.whiten(std(X[i]!)));
  let bestSteps = MLP_EVERY;
  let bestLoss = Infinity;
  const counts = new Array<number>(6).fill(0);
  for (const i of val) counts[y(i)]! += 1;
  trainMlp(
    a.Z,
    inner.map(y),
    { hidden: m.hidden, l2: m.l2, steps: MLP_MAX_STEPS },
    {
      every: MLP_EVERY,
      call: (step, net) => {
        // Class-balanced validation cross-entropy, as the training loss weighs classes.
        let loss = 0;
        val.forEach((i, r) => {
          const p = net.predict(valZ[r]!);
          loss -= Math.log(Math.max(p[y(i)]!, 1e-12)) / counts[y(i)]!;
        });
        if (loss < bestLoss) [bestLoss, bestSteps] = [loss, step];
      },
    },
  );
  const b = whitenOn(train);
  const net = trainMlp(b.Z, train.map(y), { hidden: m.hidden, l2: m.l2, steps: bestSteps });
  console.log(`  mlp: ${bestSteps} steps chosen inside the folds`);
  return test.map((i) => net.predict(b.whiten(std(X[i]!))));
}

function outOfFold(c: Candidate): number[][] {
  const { X, weights } = matrix(c.groups);
  const probs: number[][] = new Array(tune.length);
  for (let f = 0; f < FOLDS; f++) {
    const train = tune.flatMap((e, i) => (fold(e.file) === f ? [] : [i]));
    const test = tune.flatMap((e, i) => (fold(e.file) === f ? [i] : []));
    fitPredict(c, X, weights, train, test).forEach((p, r) => (probs[test[r]!] = p));
  }
  return probs;
}

const { nested } = scorer(tune);
const rulesShare = (probs: number[][]): number =>
  tune.filter((e, i) => ruledAnswer(probs[i]!, 0, e) === e.category).length / tune.length;
const t0 = performance.now();
const report = (name: string, probs: number[][]): void => {
  console.log(
    `${name.padEnd(56)} probe ${pct(probeAccuracy(probs, tune))} | rules ${pct(rulesShare(probs))} | ` +
      `nested: ${nestedFigures(nested(probs))}  (${secondsSince(t0)} s)`,
  );
};

const shipped: Group[] = [{ name: 'mixed8/mean' }, { name: 'mixed9/mean' }];
const probe = (l2 = 0.3): Model => ({ kind: 'probe', l2 });
const candidates: Candidate[] = [
  { name: 'mixed8+mixed9 mean, l2 0.3 (shipped)', groups: shipped, model: probe() },
  // 1. CenterNet's backbone on the embedding's 224 px input (cheap: network cut after the backbone)
  { name: 'bb224 extern1 alone', groups: [{ name: 'bb224/extern1' }], model: probe() },
  { name: 'shipped + bb224 extern1', groups: [...shipped, { name: 'bb224/extern1' }], model: probe() },
  { name: 'shipped + bb224 extern1 x3', groups: [...shipped, { name: 'bb224/extern1', weight: 3 }], model: probe() },
  { name: 'shipped + bb224 expand14', groups: [...shipped, { name: 'bb224/expand14' }], model: probe() },
  {
    name: 'shipped + bb224 extern1 + expand14',
    groups: [...shipped, { name: 'bb224/extern1' }, { name: 'bb224/expand14' }],
    model: probe(),
  },
  // 1b. the whole detector at 512 px (its backbone, head and class heat maxima)
  { name: 'shipped + cn512 extern1', groups: [...shipped, { name: 'cn512/extern1' }], model: probe() },
  { name: 'shipped + cn512 head', groups: [...shipped, { name: 'cn512/head' }], model: probe() },
  { name: 'shipped + cn512 heatmax x3', groups: [...shipped, { name: 'cn512/heatmax', weight: 3 }], model: probe() },
  {
    name: 'shipped + cn512 extern1 + head + heatmax',
    groups: [...shipped, { name: 'cn512/extern1' }, { name: 'cn512/head' }, { name: 'cn512/heatmax' }],
    model: probe(),
  },
  // 2. PCA whitening and the MLP on the shipped features
  { name: 'shipped, PCA-whitened 128, l2 0.3', groups: shipped, model: { kind: 'pca', components: 128, l2: 0.3 } },
  { name: 'shipped, PCA-whitened 256, l2 1', groups: shipped, model: { kind: 'pca', components: 256, l2: 1 } },
  {
    name: 'shipped, MLP 64 on PCA 256, wd 0.01',
    groups: shipped,
    model: { kind: 'mlp', components: 256, hidden: 64, l2: 0.01 },
  },
  {
    name: 'shipped, MLP 64 on PCA 256, wd 0.1',
    groups: shipped,
    model: { kind: 'mlp', components: 256, hidden: 64, l2: 0.1 },
  },
  // 2b. the MLP on the concatenation with the cheap backbone
  {
    name: 'shipped + bb224 extern1, MLP 64 on PCA 256, wd 0.01',
    groups: [...shipped, { name: 'bb224/extern1' }],
    model: { kind: 'mlp', components: 256, hidden: 64, l2: 0.01 },
  },
];

const oofDir = process.env.OOF_DIR ?? path.join(cocoDir, 'oof');
await mkdir(oofDir, { recursive: true });
const oofFile = (name: string) => path.join(oofDir, `${name.replace(/[^a-z0-9]+/gi, '_')}.json`);
console.log(`tuning part: ${tune.length} photos; ${FOLDS}-fold cross-validation; nested threshold`);
console.log(`COCO features' CPU per photo (median, ms): ${JSON.stringify(coco.index.cpuMs)}`);
const oof = new Map<string, number[][]>();
for (const c of candidates) {
  if (filter && !filter.test(c.name) && c !== candidates[0]) continue;
  const kept = await readFile(oofFile(c.name), 'utf8').catch(() => undefined);
  const probs = kept ? (JSON.parse(kept) as number[][]) : outOfFold(c);
  if (!kept) await writeFile(oofFile(c.name), JSON.stringify(probs));
  oof.set(c.name, probs);
  report(c.name, probs);
}
// Averages of probes over different inputs (scored from the kept answers, nothing retrained).
const avg = (...ps: number[][][]): number[][] =>
  ps[0]!.map((_, i) => ps[0]![i]!.map((__, k) => ps.reduce((a, p) => a + p[i]![k]!, 0) / ps.length));
for (const [name, members] of [
  ['average: shipped + bb224 extern1 alone', [candidates[0]!.name, 'bb224 extern1 alone']],
  ['average: shipped + MLP wd 0.01', [candidates[0]!.name, 'shipped, MLP 64 on PCA 256, wd 0.01']],
] as const) {
  const ps = await Promise.all(
    members.map(
      async (m) =>
        oof.get(m) ??
        (await readFile(oofFile(m), 'utf8')
          .then(JSON.parse)
          .catch(() => undefined)),
    ),
  );
  if (ps.every((p) => p !== undefined)) report(name, avg(...(ps as number[][][])));
}

// BUILD="<candidate name>" (a probe candidate): train it on the whole tuning part and write a
// reference file (VISION_OUT, default assets/reference-embeddings.json) the engine reads, with the
// abstain threshold and the detector skip chosen as build-reference-embeddings.ts chooses them, on
// the candidate's out-of-fold answers. Nothing here reads the test part. A file naming `bb224/<map>`
// groups needs the engine path that reads them, which was not kept (bench/README.md, acc8; commit ffce8bb).
const buildName = process.env.BUILD;
if (buildName) {
  const c = candidates.find((x) => x.name === buildName);
  const probs = oof.get(buildName);
  if (!c || !probs || c.model.kind !== 'probe') throw new Error(`BUILD: no probe candidate scored named ${buildName}`);
  const l2 = c.model.l2;
  const chosen = chooseBuildThresholds(probs, tune, (i, t) => ruledAnswer(probs[i]!, t, tune[i]!));
  console.log(`BUILD ${buildName}: ${chosen.summary}`);
  const { X, weights } = matrix(c.groups);
  const model = trainProbe(
    tune.map((e, i) => ({ x: X[i]!, y: categoryIndex(e.category) })),
    { ...PROBE, l2, inputWeights: weights.some((w) => w !== 1) ? weights : undefined },
  );
  const features = c.groups.map((g) => g.name);
  const layers = features
    .filter((f) => /^mixed/.test(f))
    .map((f) => f.split('/')[0]!)
    .filter((b, i, a) => a.indexOf(b) === i);
  const outPath = await writeReferenceFile({
    candidate: c.name,
    features,
    layers,
    inputSize: pooled.index.inputSize,
    l2,
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
}
