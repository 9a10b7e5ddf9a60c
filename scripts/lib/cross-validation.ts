/**
 * The cross-validation every organizer script measures with (build-reference-embeddings.ts,
 * classifier-candidates.ts, classifier-candidates-pooled.ts, view-candidates.ts). It lives in one
 * place so that their figures stay comparable: a candidate is only better than the shipped setup
 * if both were scored by the same folds, the same decision path and the same threshold rule.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PHOTO_CATEGORIES, type CategoryResult, type PhotoCategory } from '../../src/domain/photo-categories';
import {
  analyzePhoto,
  categoryIndex,
  decideFromProbabilities,
  fnv1a,
  splitGroupKey,
  type Detections,
} from '../../src/server/features/analysis/index';
import type { FeatureIndex } from '../vision-features';

/** Folds of the tuning part; every figure in bench/README.md since acc1 is 5-fold. */
export const FOLDS = 5;
/** Most photos the abstain threshold may leave 'uncategorized' (the spec's organizer target). */
export const MAX_ABSTAIN = 0.08;

/**
 * A photo's fold, by the split's group key, so near-copies (one group) never sit on both sides of
 * a fold and inflate the figures.
 */
export const foldOf = (file: string): number => Math.floor(fnv1a(splitGroupKey(file)) / 10) % FOLDS;

/** What the scripts need of a cached photo: its label, its part and the detectors' answer. */
export interface LabelledEntry {
  file: string;
  category: PhotoCategory;
  set: 'tune' | 'test' | 'demo';
  detections: Detections;
}

/**
 * The tuning part and the demo library: the test part is dropped here, before anything is computed,
 * so no choice can be made on it.
 */
export const tuningPart = <E extends LabelledEntry>(entries: readonly E[]): E[] =>
  entries.filter((e) => e.set === 'tune' || e.set === 'demo');

/** One cache row: the feature groups' values end to end, in the order the cache's index names them. */
export function featureRow(groups: readonly { v: ArrayLike<number> }[]): Float32Array {
  const row = new Float32Array(groups.reduce((n, g) => n + g.v.length, 0));
  let at = 0;
  for (const g of groups) {
    row.set(g.v, at);
    at += g.v.length;
  }
  return row;
}

/**
 * A candidate's inputs: each entry's feature groups end to end, and the weight of each value (its
 * group's). `values(e)` is the group's slice of the entry's cache row.
 */
export function groupMatrix<E>(
  entries: readonly E[],
  parts: readonly { dims: number; weight: number; values: (e: E) => ArrayLike<number> }[],
): { X: Float32Array[]; weights: Float32Array } {
  const D = parts.reduce((n, p) => n + p.dims, 0);
  const weights = new Float32Array(D);
  let o = 0;
  for (const p of parts) {
    weights.fill(p.weight, o, o + p.dims);
    o += p.dims;
  }
  const X = entries.map((e) => {
    const v = new Float32Array(D);
    let at = 0;
    for (const p of parts) {
      v.set(p.values(e), at);
      at += p.dims;
    }
    return v;
  });
  return { X, weights };
}

/** A feature cache as the vision-features scripts write it (writeFeatureCache): index.json + emb.f32. */
export async function loadFeatureCache<I>(dir: string): Promise<{ index: I; all: Float32Array }> {
  const index = JSON.parse(await readFile(path.join(dir, 'index.json'), 'utf8')) as I;
  const raw = await readFile(path.join(dir, 'emb.f32'));
  return { index, all: new Float32Array(raw.buffer, raw.byteOffset, raw.byteLength / 4) };
}

/** A photo of a feature-group cache (vision-features-coco.ts, vision-features-nanodet.ts) and its row. */
export interface GroupCacheEntry {
  file: string;
  category: PhotoCategory;
  set: 'tune' | 'test' | 'demo';
  row: number;
}
/** Such a cache's index: its groups in row order, the row width, the photos, the CPU of its runs. */
export interface GroupCacheIndex<Cpu> {
  features: { name: string; dims: number }[];
  width: number;
  entries: GroupCacheEntry[];
  /** Median CPU per photo of each network run, ms (the first runs plan memory and pick kernels). */
  cpuMs: Cpu;
}
/** This process's CPU time so far (user + system), ms: what a feature script charges each network run. */
export const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
export const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/**
 * Writes a feature cache loadFeatureCache reads: the rows end to end as `emb.f32`, then the index.
 * The index goes last so that a run stopped midway leaves no index naming rows that were never
 * written; a row of another width is refused, since every reader slices rows by one width.
 */
export async function writeFeatureCache(
  dir: string,
  rows: readonly Float32Array[],
  width: number,
  index: unknown,
): Promise<void> {
  const all = new Float32Array(rows.length * width);
  rows.forEach((r, i) => {
    if (r.length !== width) throw new Error(`feature cache row ${i} has ${r.length} values, expected ${width}`);
    all.set(r, i * width);
  });
  await writeFile(path.join(dir, 'emb.f32'), Buffer.from(all.buffer));
  await writeFile(path.join(dir, 'index.json'), JSON.stringify(index));
}

/**
 * Collects a feature-group cache photo by photo (each photo's groups in the same order and widths as
 * the first's, else an error names the photo), then writes it with writeFeatureCache.
 */
export function groupCacheWriter() {
  const rows: Float32Array[] = [];
  const entries: GroupCacheEntry[] = [];
  let features: GroupCacheIndex<unknown>['features'] | undefined;
  return {
    add(photo: Omit<GroupCacheEntry, 'row'>, groups: readonly { name: string; v: ArrayLike<number> }[]): void {
      const layout = groups.map((g) => ({ name: g.name, dims: g.v.length }));
      features ??= layout;
      if (JSON.stringify(layout) !== JSON.stringify(features)) {
        throw new Error(`${photo.file}: feature groups ${JSON.stringify(layout)} differ from the cache's`);
      }
      rows.push(featureRow(groups));
      entries.push({ ...photo, row: entries.length });
    },
    async write<Cpu>(dir: string, cpuMs: Cpu): Promise<GroupCacheIndex<Cpu>> {
      if (!features) throw new Error('no photos');
      const width = features.reduce((n, f) => n + f.dims, 0);
      const index = { features, width, entries, cpuMs };
      await writeFeatureCache(dir, rows, width, index);
      return index;
    },
  };
}

/** A vision-features.ts cache with each row's width and each block's start in it. */
export interface BlockCache {
  index: FeatureIndex;
  all: Float32Array;
  width: number;
  offsets: number[];
}
export async function loadBlockCache(dir: string): Promise<BlockCache> {
  const { index, all } = await loadFeatureCache<FeatureIndex>(dir);
  const offsets = index.dims.map((_, i) => index.dims.slice(0, i).reduce((a, b) => a + b, 0));
  return { index, all, width: index.dims.reduce((a, b) => a + b, 0), offsets };
}

/**
 * One cached row's global means of the given blocks, concatenated in that order (what the engine
 * embeds for a reference file naming `layers`); `unitBlocks` scales each block to unit length first.
 */
export function blockVector(c: BlockCache, row: number, layers: readonly string[], unitBlocks = false): Float32Array {
  const idx = layers.map((l) => c.index.layers.indexOf(l));
  const out = new Float32Array(idx.reduce((a, i) => a + c.index.dims[i]!, 0));
  let o = 0;
  for (const i of idx) {
    const start = row * c.width + c.offsets[i]!;
    const block = c.all.subarray(start, start + c.index.dims[i]!);
    if (unitBlocks) {
      const n = Math.sqrt(block.reduce((a, x) => a + x * x, 0)) || 1;
      for (let j = 0; j < block.length; j++) out[o + j] = block[j]! / n;
    } else out.set(block, o);
    o += block.length;
  }
  return out;
}

export const argmax = (p: readonly number[]): number => p.indexOf(Math.max(...p));
export const pct = (x: number): string => `${(x * 100).toFixed(1)} %`;
/** Seconds since t0, for the progress the long runs print on each line. */
export const secondsSince = (t0: number): string => ((performance.now() - t0) / 1000).toFixed(0);

/** Share of photos whose probe's leading category is their label (the probe alone, no abstaining). */
export const probeAccuracy = (probs: readonly (readonly number[])[], entries: readonly LabelledEntry[]): number =>
  probs.filter((p, i) => argmax(p) === categoryIndex(entries[i]!.category)).length / entries.length;

/**
 * The engine's answer from the probe's probabilities: the hand-written detector rules of
 * analyzePhoto on the cached detections, abstaining below the threshold. Colours are neutral because
 * the cache does not hold them and the rules in use do not read them.
 */
export function ruledAnswer(p: readonly number[], threshold: number, e: LabelledEntry): CategoryResult {
  return analyzePhoto({
    classification: decideFromProbabilities(p, threshold),
    objects: e.detections.objects,
    faces: e.detections.faces,
    colours: { brightness: 0.5, dominant: [], skyShare: 0 },
  }).category;
}

/** One abstain threshold, or one per category (applied by the probe's leading category). */
export type Threshold = number | Readonly<Record<PhotoCategory, number>>;
const thresholdFor = (p: readonly number[], t: Threshold): number =>
  typeof t === 'number' ? t : t[PHOTO_CATEGORIES[argmax(p)]!];

export interface Tally {
  right: number;
  given: number;
  wrong: number;
  n: number;
}

/**
 * What a wrong category costs against a right one when the abstain threshold is chosen (utility
 * right - WRONG_COST x wrong; 'uncategorized' costs nothing). 2 since round 1: a wrong category costs
 * a user's trust. VISION_WRONG_COST sets another for a run (acc10 measured 1 and 1.5).
 */
export const WRONG_COST = wrongCostFrom(process.env.VISION_WRONG_COST);
export function wrongCostFrom(value: string | undefined): number {
  if (value === undefined || value === '') return 2;
  const cost = Number(value);
  // Below 0 a wrong answer would pay: abstaining would never be chosen for the right reason.
  if (!Number.isFinite(cost) || cost < 0) throw new Error(`VISION_WRONG_COST must be a number >= 0, got '${value}'`);
  return cost;
}

/** Thresholds the nested search tries after 0 (no abstaining). */
export const THRESHOLD_GRID = Array.from({ length: 31 }, (_, k) => 0.2 + k * 0.02);

/**
 * Scoring of out-of-fold probabilities of the tuning photos (`tune[i]` is photo i) by the
 * engine's decision, with the threshold chosen as build-reference-embeddings.ts chooses it.
 */
export function scorer(tune: readonly LabelledEntry[], wrongCost = WRONG_COST) {
  const all = tune.map((_, i) => i);
  const score = (probs: number[][], idx: readonly number[], t: Threshold): Tally => {
    let right = 0;
    let given = 0;
    for (const i of idx) {
      const got = ruledAnswer(probs[i]!, thresholdFor(probs[i]!, t), tune[i]!);
      if (got !== 'uncategorized') given++;
      if (got === tune[i]!.category) right++;
    }
    return { right, given, wrong: given - right, n: idx.length };
  };
  /** right - wrongCost x wrong (a wrong category costs a user's trust, 'uncategorized' nothing), within MAX_ABSTAIN. */
  const utility = (s: Tally): number => (1 - s.given / s.n > MAX_ABSTAIN ? -Infinity : s.right - wrongCost * s.wrong);
  /** The best single threshold on these photos: 0 unless a grid value is strictly better. */
  const chooseThreshold = (probs: number[][], idx: readonly number[]): number => {
    let best = 0;
    let bestU = utility(score(probs, idx, 0));
    for (const t of THRESHOLD_GRID) {
      const u = utility(score(probs, idx, t));
      if (u > bestU) [best, bestU] = [t, u];
    }
    return best;
  };
  /**
   * The threshold chosen on four folds' out-of-fold answers and applied to the fifth, so a candidate
   * is not credited with a threshold fitted to the photos it is scored on; `subset` restricts the
   * photos scored (not those the threshold is chosen on).
   */
  const nested = (
    probs: number[][],
    choose: (probs: number[][], idx: number[]) => Threshold = chooseThreshold,
    subset?: (i: number) => boolean,
  ) => {
    let right = 0;
    let given = 0;
    let n = 0;
    for (let f = 0; f < FOLDS; f++) {
      const inner = all.filter((i) => foldOf(tune[i]!.file) !== f);
      const outer = all.filter((i) => foldOf(tune[i]!.file) === f && (!subset || subset(i)));
      const s = score(probs, outer, choose(probs, inner));
      right += s.right;
      given += s.given;
      n += s.n;
    }
    return { right: right / n, abstained: 1 - given / n, precision: right / Math.max(given, 1) };
  };
  return { score, utility, chooseThreshold, nested };
}

/** The nested figures as every report line prints them. */
export const nestedFigures = (s: { right: number; abstained: number; precision: number }): string =>
  `right ${pct(s.right)}, uncategorized ${pct(s.abstained)}, precision ${pct(s.precision)}`;
