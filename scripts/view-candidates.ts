/**
 * Measures "what the network sees" candidates on the TUNING part only (the test part is dropped
 * before anything is computed; run vision-features.ts with VISION_PARTS=tune,demo and it is never
 * even embedded), by the same 5-fold cross-validation, folds, probe training, detector rules and
 * nested abstain threshold as classifier-candidates.ts:
 *   - the cut-out's subject box (scripts/lib/subject-box.ts) embedded instead of the whole photo, or with it
 *     (features averaged, probabilities averaged, both views as training rows, concatenated);
 *   - test-time views: whole photo + centre crop, probabilities averaged (a second embedding pass);
 *   - a second backbone (nsfwjs' MobileNetV2), or InceptionV3 at a second input side (a cache made
 *     with VISION_INPUT), with InceptionV3 at 224 px: features concatenated, or the two
 *     probes' probabilities averaged.
 * Nothing is written to the reference file.
 *
 *   VISION_PARTS=tune,demo VISION_VIEWS=orig,subject,centre npx tsx scripts/vision-features.ts <dirA>
 *   VISION_PARTS=tune,demo VISION_VIEWS=orig VISION_MODEL=mobilenet_v2 VISION_REUSE=<dirA> \
 *     npx tsx scripts/vision-features.ts <dirB>
 *   npx tsx scripts/view-candidates.ts <dirA> [dirB] [candidate name filter]
 */
import { PHOTO_CATEGORIES } from '../src/domain/photo-categories';
import {
  categoryIndex,
  predictProbe,
  trainProbe,
  type ProbeModel,
  type TrainingRow,
} from '../src/server/features/analysis/index';
import {
  FOLDS,
  blockVector as block,
  foldOf as fold,
  loadBlockCache,
  nestedFigures,
  pct,
  probeAccuracy,
  scorer,
  secondsSince,
  tuningPart,
} from './lib/cross-validation';

const [dirA = '/tmp/eyevu-vision-features', dirB, only] = process.argv.slice(2);

const A = await loadBlockCache(dirA);
const B = dirB ? await loadBlockCache(dirB) : undefined;
const bFile = new Map(B?.index.entries.map((e) => [e.file, e]));
const tune = tuningPart(A.index.entries);
const INCEPTION = ['mixed8', 'mixed9'];
const orig = tune.map((e) => block(A, e.rows.orig!, INCEPTION));
/** The subject box's vector for a cut-out, the whole photo's otherwise (what the engine would embed). */
const subject = tune.map((e, i) => (e.rows.subject !== undefined ? block(A, e.rows.subject, INCEPTION) : orig[i]!));
const isCutout = tune.map((e) => e.rows.subject !== undefined);
const centre = tune.every((e) => e.rows.centre !== undefined)
  ? tune.map((e) => block(A, e.rows.centre!, INCEPTION))
  : undefined;
const viewOf = (v: 'square' | 'pad'): Float32Array[] | undefined =>
  tune.every((e) => e.rows[v] !== undefined) ? tune.map((e) => block(A, e.rows[v]!, INCEPTION)) : undefined;
const square = viewOf('square');
const pad = viewOf('pad');
/** The second cache's network: MobileNetV2 (its last two cached blocks) or InceptionV3 at another side. */
const secondName = !B
  ? ''
  : B.index.model === 'mobilenet_v2'
    ? 'MobileNetV2'
    : `InceptionV3 ${B.index.inputSize ?? 224} px`;
const mobile = B
  ? tune.map((e) => {
      const m = bFile.get(e.file);
      if (m?.rows.orig === undefined) throw new Error(`no ${secondName} row for ${e.file}`);
      return block(B, m.rows.orig, B.index.model === 'mobilenet_v2' ? B.index.layers.slice(-2) : INCEPTION);
    })
  : undefined;

const avg = (a: Float32Array, b: Float32Array): Float32Array => a.map((v, j) => (v + b[j]!) / 2);
const cat = (a: Float32Array, b: Float32Array): Float32Array => {
  const out = new Float32Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
};

/**
 * A candidate: the rows one photo contributes to training (weights split evenly) and the views whose
 * probabilities are averaged at prediction; one probe is trained per fold on the rows.
 */
interface Candidate {
  name: string;
  train: (i: number) => Float32Array[];
  predict: (i: number) => Float32Array[];
  l2?: number;
  /** Extra embedding passes per photo at run time (the CPU cost), on average over the tuning part. */
  extraPasses: number;
}

function outOfFold(c: Candidate): number[][] {
  const probs: number[][] = new Array(tune.length);
  for (let f = 0; f < FOLDS; f++) {
    const rows: TrainingRow[] = tune.flatMap((e, i) => {
      if (fold(e.file) === f) return [];
      const xs = c.train(i);
      return xs.map((x) => ({ x, y: categoryIndex(e.category), weight: 1 / xs.length }));
    });
    const model: ProbeModel = trainProbe(rows, {
      l2: c.l2 ?? 0.3,
      iterations: 150,
      learningRate: 0.01,
      balanced: true,
    });
    tune.forEach((e, i) => {
      if (fold(e.file) !== f) return;
      const ps = c.predict(i).map((x) => predictProbe(model, x));
      probs[i] = ps[0]!.map((_, k) => ps.reduce((a, p) => a + p[k]!, 0) / ps.length);
    });
  }
  return probs;
}

const { nested, chooseThreshold } = scorer(tune);

const cutShare = isCutout.filter(Boolean).length / tune.length;
console.log(
  `tuning part: ${tune.length} photos (${isCutout.filter(Boolean).length} cut-outs, ${pct(cutShare)}); ` +
    `${FOLDS}-fold cross-validation; centre views: ${centre !== undefined}; second cache: ${secondName || 'none'}`,
);
const candidates: Candidate[] = [
  { name: 'whole photo (shipped)', train: (i) => [orig[i]!], predict: (i) => [orig[i]!], extraPasses: 0 },
  { name: 'subject box instead of whole', train: (i) => [subject[i]!], predict: (i) => [subject[i]!], extraPasses: 0 },
  {
    name: 'whole + subject, features averaged',
    train: (i) => [avg(orig[i]!, subject[i]!)],
    predict: (i) => [avg(orig[i]!, subject[i]!)],
    extraPasses: cutShare,
  },
  {
    name: 'whole-trained probe, probs of whole+subject',
    train: (i) => [orig[i]!],
    predict: (i) => (isCutout[i] ? [orig[i]!, subject[i]!] : [orig[i]!]),
    extraPasses: cutShare,
  },
  {
    name: 'both as training rows, probs of whole+subject',
    train: (i) => (isCutout[i] ? [orig[i]!, subject[i]!] : [orig[i]!]),
    predict: (i) => (isCutout[i] ? [orig[i]!, subject[i]!] : [orig[i]!]),
    extraPasses: cutShare,
  },
  {
    name: 'both as training rows, subject at prediction',
    train: (i) => (isCutout[i] ? [orig[i]!, subject[i]!] : [orig[i]!]),
    predict: (i) => [subject[i]!],
    extraPasses: 0,
  },
  {
    name: 'whole and subject concatenated',
    train: (i) => [cat(orig[i]!, subject[i]!)],
    predict: (i) => [cat(orig[i]!, subject[i]!)],
    extraPasses: cutShare,
  },
  ...(centre
    ? [
        {
          name: 'whole-trained probe, probs of whole+centre',
          train: (i: number) => [orig[i]!],
          predict: (i: number) => [orig[i]!, centre[i]!],
          extraPasses: 1,
        },
        {
          name: 'both as training rows, probs of whole+centre',
          train: (i: number) => [orig[i]!, centre[i]!],
          predict: (i: number) => [orig[i]!, centre[i]!],
          extraPasses: 1,
        },
        {
          name: 'subject box (cut-outs) + centre (others), probs',
          train: (i: number) => [orig[i]!],
          predict: (i: number) => [orig[i]!, isCutout[i] ? subject[i]! : centre[i]!],
          extraPasses: 1,
        },
      ]
    : []),
  ...(square && pad
    ? [
        {
          name: 'centred square crop instead of squash',
          train: (i: number) => [square[i]!],
          predict: (i: number) => [square[i]!],
          extraPasses: 0,
        },
        {
          name: 'padded to square (aspect kept) instead of squash',
          train: (i: number) => [pad[i]!],
          predict: (i: number) => [pad[i]!],
          extraPasses: 0,
        },
        {
          name: 'both as training rows, probs of whole+square',
          train: (i: number) => [orig[i]!, square[i]!],
          predict: (i: number) => [orig[i]!, square[i]!],
          extraPasses: 1,
        },
      ]
    : []),
  ...(mobile
    ? [
        {
          name: `${secondName} alone`,
          train: (i: number) => [mobile[i]!],
          predict: (i: number) => [mobile[i]!],
          extraPasses: 0,
        },
        {
          name: `InceptionV3 + ${secondName} concatenated`,
          train: (i: number) => [cat(orig[i]!, mobile[i]!)],
          predict: (i: number) => [cat(orig[i]!, mobile[i]!)],
          extraPasses: 0,
        },
        {
          name: `InceptionV3 (subject box) + ${secondName} concat`,
          train: (i: number) => [cat(subject[i]!, mobile[i]!)],
          predict: (i: number) => [cat(subject[i]!, mobile[i]!)],
          extraPasses: 0,
        },
      ]
    : []),
];
const t0 = performance.now();
const oof = new Map<string, number[][]>();
const report = (name: string, probs: number[][], extra: string): void => {
  const cut = nested(probs, chooseThreshold, (i) => isCutout[i]!);
  console.log(
    `${name.padEnd(50)} probe ${pct(probeAccuracy(probs, tune))} | nested: ${nestedFigures(nested(probs))} | ` +
      `cut-outs right ${pct(cut.right)} | ${extra} (${secondsSince(t0)} s)`,
  );
};
for (const c of candidates) {
  if (only && !c.name.includes(only) && !c.name.includes('shipped')) continue;
  const probs = outOfFold(c);
  oof.set(c.name, probs);
  report(c.name, probs, `+${c.extraPasses.toFixed(2)} Inception passes/photo`);
}
// Ensembles of two probes trained on different inputs: their probabilities averaged.
const mean = (a: number[][], b: number[][]): number[][] => a.map((p, i) => p.map((v, k) => (v + b[i]![k]!) / 2));
const pair = (a: string, b: string, extra: string): void => {
  if (oof.has(a) && oof.has(b)) report(`avg probs: ${a} & ${b}`.slice(0, 50), mean(oof.get(a)!, oof.get(b)!), extra);
};
pair('whole photo (shipped)', `${secondName} alone`, `+1 ${secondName} pass`);
pair('subject box instead of whole', `${secondName} alone`, `+1 ${secondName} pass`);
pair('whole photo (shipped)', 'subject box instead of whole', `+${cutShare.toFixed(2)} Inception passes`);
pair('whole photo (shipped)', 'centred square crop instead of squash', '+1 Inception pass');
pair('whole photo (shipped)', 'padded to square (aspect kept) instead of squash', '+1 Inception pass');
console.log(`categories: ${PHOTO_CATEGORIES.join(', ')}`);
