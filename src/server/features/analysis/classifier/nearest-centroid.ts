/**
 * The nearest-centroid classifier the probe replaced, and its leave-one-out evaluation: kept
 * because scripts compare against it and its Classification shape is what every decision returns.
 */
import { PHOTO_CATEGORIES, type CategoryResult, type PhotoCategory } from '@domain/photo-categories';
import { cosineSimilarity, normalize, type Vector } from './vectors';

export interface Centroid {
  category: PhotoCategory;
  vector: Vector;
}

export interface Classification {
  category: CategoryResult;
  /** Nearest category even when it was not confident enough to be used. */
  nearest: PhotoCategory;
  /** Second-nearest category. */
  runnerUp: PhotoCategory;
  similarity: number;
  /** Cosine gap between the nearest and the runner-up centroid. */
  margin: number;
}

export function classifyEmbedding(
  embedding: Vector,
  centroids: readonly Centroid[],
  minMargin: number,
): Classification {
  if (centroids.length < 2) throw new Error('need at least two centroids');
  const scored = centroids
    .map((c) => ({ category: c.category, sim: cosineSimilarity(embedding, c.vector) }))
    .sort((x, y) => y.sim - x.sim);
  const [best, second] = scored;
  const margin = best.sim - second.sim;
  return {
    category: margin >= minMargin ? best.category : 'uncategorized',
    nearest: best.category,
    runnerUp: second.category,
    similarity: best.sim,
    margin,
  };
}

export interface LabelledEmbedding {
  category: PhotoCategory;
  embedding: Vector;
}

export interface LeaveOneOutResult {
  /** Accuracy of the plain nearest centroid (no margin), each photo held out of its own centroid. */
  accuracy: number;
  margin: number;
  /** At the chosen margin: share of photos that get a category, and how many of those are right. */
  coverage: number;
  acceptedAccuracy: number;
  confusion: Record<PhotoCategory, Record<PhotoCategory, number>>;
}

/**
 * Picks the margin threshold from held-out predictions instead of guessing: each photo
 * is classified against centroids built without it, and the threshold maximises
 * (correct − wrong) among accepted photos — a wrong category costs as much as a right
 * one gains, and `uncategorized` costs nothing.
 */
export function leaveOneOut(samples: readonly LabelledEmbedding[]): LeaveOneOutResult {
  const units = samples.map((s) => ({ category: s.category, u: normalize(s.embedding) }));
  const sums = new Map<PhotoCategory, { sum: Float32Array; n: number }>();
  for (const s of units) {
    const e = sums.get(s.category) ?? { sum: new Float32Array(s.u.length), n: 0 };
    for (let i = 0; i < s.u.length; i++) e.sum[i] += s.u[i];
    e.n++;
    sums.set(s.category, e);
  }
  const confusion = emptyConfusion();
  const preds: { correct: boolean; margin: number }[] = [];
  for (const s of units) {
    const centroids: Centroid[] = [];
    for (const [category, { sum, n }] of sums) {
      const v = new Float32Array(sum);
      if (category === s.category) {
        if (n < 2) continue;
        for (let i = 0; i < v.length; i++) v[i] -= s.u[i];
      }
      centroids.push({ category, vector: v });
    }
    const c = classifyEmbedding(s.u, centroids, 0);
    confusion[s.category][c.nearest]++;
    preds.push({ correct: c.nearest === s.category, margin: c.margin });
  }
  const candidates = [0, ...preds.map((p) => p.margin)].sort((a, b) => a - b);
  let bestT = 0;
  let bestUtility = -Infinity;
  for (const t of candidates) {
    let u = 0;
    for (const p of preds) if (p.margin >= t) u += p.correct ? 1 : -1;
    if (u > bestUtility) {
      bestUtility = u;
      bestT = t;
    }
  }
  const accepted = preds.filter((p) => p.margin >= bestT);
  const n = Math.max(preds.length, 1);
  return {
    accuracy: preds.filter((p) => p.correct).length / n,
    margin: bestT,
    coverage: accepted.length / n,
    acceptedAccuracy: accepted.length ? accepted.filter((p) => p.correct).length / accepted.length : 0,
    confusion,
  };
}

export function emptyConfusion(): Record<PhotoCategory, Record<PhotoCategory, number>> {
  const row = (): Record<PhotoCategory, number> =>
    Object.fromEntries(PHOTO_CATEGORIES.map((c) => [c, 0])) as Record<PhotoCategory, number>;
  return Object.fromEntries(PHOTO_CATEGORIES.map((c) => [c, row()])) as Record<
    PhotoCategory,
    Record<PhotoCategory, number>
  >;
}
