/**
 * Branch acc9's candidates (bench/README.md, acc9: the rule and the list were committed before any
 * figure), measured on the TUNING part only by the cross-validation of scripts/lib/cross-validation.ts
 * (same folds, the engine's detector rules, the abstain threshold chosen on four folds and applied to
 * the fifth), so the first row is the shipped setup's figure on the same photos: NanoDet's class
 * evidence, backbone and feature pyramid (scripts/vision-features-nanodet.ts) concatenated with the
 * shipped InceptionV3 embedding (mixed8+mixed9 means of scripts/vision-features.ts' cache), each group
 * given a weight per value after standardisation.
 * Run: nice -n 5 npx tsx scripts/classifier-candidates-nanodet.ts <vision-features dir> <nanodet dir> [name filter]
 * BUILD="<candidate>" writes its reference file (VISION_OUT) as classifier-candidates-coco.ts does.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { categoryIndex, predictProbe, trainProbe, type TrainingRow } from '../src/server/features/analysis/index';
import {
  FOLDS,
  blockVector,
  foldOf as fold,
  groupMatrix,
  loadBlockCache,
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
import type { NanodetIndex } from './vision-features-nanodet';

const featureDir = process.argv[2] ?? '/tmp/eyevu-vision-features';
const nanodetDir = process.argv[3] ?? '/tmp/eyevu-vision-nanodet';
const filter = process.argv[4] ? new RegExp(process.argv[4]) : undefined;

const blocks = await loadBlockCache(featureDir);
const nano = await loadFeatureCache<NanodetIndex>(nanodetDir);
const tune = tuningPart(blocks.index.entries);
const nanoRow = new Map(nano.index.entries.map((e) => [e.file, e.row]));
for (const e of tune) if (!nanoRow.has(e.file)) throw new Error(`no nanodet features for ${e.file}`);

interface Group {
  name: string;
  weight?: number;
}
interface Candidate {
  name: string;
  groups: Group[];
  l2: number;
}

const SHIPPED_LAYERS = ['mixed8', 'mixed9'];
/** Each tuning photo's concatenated groups, and the weight of each value. */
function matrix(groups: readonly Group[]): { X: Float32Array[]; weights: Float32Array } {
  const parts = groups.map((g) => {
    if (g.name === 'shipped') {
      const dims = blockVector(blocks, tune[0]!.rows.orig!, SHIPPED_LAYERS).length;
      return {
        dims,
        weight: g.weight ?? 1,
        values: (e: (typeof tune)[number]) => blockVector(blocks, e.rows.orig!, SHIPPED_LAYERS),
      };
    }
    let at = 0;
    const f = nano.index.features.find((x) => {
      if (x.name === g.name) return true;
      at += x.dims;
      return false;
    });
    if (!f) throw new Error(`no feature group ${g.name}`);
    return {
      dims: f.dims,
      weight: g.weight ?? 1,
      values: (e: (typeof tune)[number]) => {
        const start = nanoRow.get(e.file)! * nano.index.width + at;
        return nano.all.subarray(start, start + f.dims);
      },
    };
  });
  return groupMatrix(tune, parts);
}

const PROBE = { iterations: 150, learningRate: 0.01, balanced: true } as const;
const trainOn = (c: Candidate, X: Float32Array[], weights: Float32Array, idx: readonly number[]) =>
  trainProbe(
    idx.map((i): TrainingRow => ({ x: X[i]!, y: categoryIndex(tune[i]!.category) })),
    { ...PROBE, l2: c.l2, inputWeights: weights.some((w) => w !== 1) ? weights : undefined },
  );

function outOfFold(c: Candidate): number[][] {
  const { X, weights } = matrix(c.groups);
  const probs: number[][] = new Array(tune.length);
  for (let f = 0; f < FOLDS; f++) {
    const train = tune.flatMap((e, i) => (fold(e.file) === f ? [] : [i]));
    const model = trainOn(c, X, weights, train);
    tune.forEach((e, i) => {
      if (fold(e.file) === f) probs[i] = predictProbe(model, X[i]!);
    });
  }
  return probs;
}

const { nested } = scorer(tune);
const rulesShare = (probs: number[][]): number =>
  tune.filter((e, i) => ruledAnswer(probs[i]!, 0, e) === e.category).length / tune.length;
const t0 = performance.now();
const report = (name: string, probs: number[][]): void => {
  console.log(
    `${name.padEnd(46)} probe ${pct(probeAccuracy(probs, tune))} | rules ${pct(rulesShare(probs))} | ` +
      `nested: ${nestedFigures(nested(probs))}  (${secondsSince(t0)} s)`,
  );
};

const shipped: Group = { name: 'shipped' };
const candidates: Candidate[] = [
  { name: 'mixed8+mixed9, l2 0.3 (shipped)', groups: [shipped], l2: 0.3 },
  // 1. the class evidence
  { name: 'shipped + nanodet classmax', groups: [shipped, { name: 'nanodet/classmax' }], l2: 0.3 },
  { name: 'shipped + nanodet classmax x3', groups: [shipped, { name: 'nanodet/classmax', weight: 3 }], l2: 0.3 },
  // 2. the backbone's deepest map
  { name: 'shipped + nanodet backbone', groups: [shipped, { name: 'nanodet/backbone' }], l2: 0.3 },
  { name: 'shipped + nanodet backbone x3', groups: [shipped, { name: 'nanodet/backbone', weight: 3 }], l2: 0.3 },
  // 3. the feature pyramid the head reads
  { name: 'shipped + nanodet pyramid', groups: [shipped, { name: 'nanodet/pyramid' }], l2: 0.3 },
  // 4. class evidence and backbone together
  {
    name: 'shipped + nanodet classmax x3 + backbone',
    groups: [shipped, { name: 'nanodet/classmax', weight: 3 }, { name: 'nanodet/backbone' }],
    l2: 0.3,
  },
];

const oofDir = process.env.OOF_DIR ?? path.join(nanodetDir, 'oof');
await mkdir(oofDir, { recursive: true });
const oofFile = (name: string) => path.join(oofDir, `${name.replace(/[^a-z0-9]+/gi, '_')}.json`);
console.log(`tuning part: ${tune.length} photos; ${FOLDS}-fold cross-validation; nested threshold`);
console.log(`nanodet's CPU per photo (median, tfjs): ${nano.index.cpuMs.toFixed(1)} ms`);
const oof = new Map<string, number[][]>();
for (const c of candidates) {
  if (filter && !filter.test(c.name) && c !== candidates[0]) continue;
  const kept = await readFile(oofFile(c.name), 'utf8').catch(() => undefined);
  const probs = kept ? (JSON.parse(kept) as number[][]) : outOfFold(c);
  if (!kept) await writeFile(oofFile(c.name), JSON.stringify(probs));
  oof.set(c.name, probs);
  report(c.name, probs);
}

// BUILD="<candidate name>": train it on the whole tuning part and write its reference file, the
// threshold and detector skip chosen on its out-of-fold answers (reference-build.ts). The engine
// has no path that computes `nanodet/*` groups: a file naming them is for the one test look by a
// script, and would need that path before it could ship.
const buildName = process.env.BUILD;
if (buildName) {
  const c = candidates.find((x) => x.name === buildName);
  const probs = oof.get(buildName);
  if (!c || !probs) throw new Error(`BUILD: no candidate scored named ${buildName}`);
  const chosen = chooseBuildThresholds(probs, tune, (i, t) => ruledAnswer(probs[i]!, t, tune[i]!));
  console.log(`BUILD ${buildName}: ${chosen.summary}`);
  const { X, weights } = matrix(c.groups);
  const model = trainOn(
    c,
    X,
    weights,
    tune.map((_, i) => i),
  );
  const features = c.groups.flatMap((g) => (g.name === 'shipped' ? SHIPPED_LAYERS.map((l) => `${l}/mean`) : [g.name]));
  const outPath = await writeReferenceFile({
    candidate: c.name,
    features,
    layers: SHIPPED_LAYERS,
    inputSize: blocks.index.inputSize ?? 224,
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
}
