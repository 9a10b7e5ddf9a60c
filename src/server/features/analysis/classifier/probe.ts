/**
 * A linear softmax classifier ("probe") over photo features, trained here in plain TypeScript so
 * that training is deterministic (no random init, no threads, full-batch) and the same code path
 * is unit-testable. Used twice: on the image embedding, and on a few numbers summarising the
 * embedding probe's answer plus what the detectors found. Pure: no I/O, no tfjs.
 */
import { PHOTO_CATEGORIES, type PhotoCategory } from '@domain/photo-categories';

export interface ProbeModel {
  /** Per-input standardisation learned on the training rows. */
  mean: number[];
  scale: number[];
  /** weights[k][j]: class k (PHOTO_CATEGORIES order), input j. */
  weights: number[][];
  bias: number[];
}

export interface TrainOptions {
  /** L2 penalty on the weights (not the bias), per row of data. */
  l2: number;
  iterations?: number;
  learningRate?: number;
  /** Weight each class by 1 / its count, so a big class does not crowd out a small one. */
  balanced?: boolean;
  /**
   * Per-input multiplier after standardisation (default 1 each): a group of a few inputs (hand-made
   * statistics beside thousands of embedding values) can be given more say than one value each,
   * which under the same L2 amounts to a smaller penalty on its weights. Kept in the model's scale,
   * so prediction needs nothing new.
   */
  inputWeights?: ArrayLike<number>;
  /** Share of each row's target spread over the other categories (0: plain one-hot). */
  labelSmoothing?: number;
}

export interface TrainingRow {
  x: ArrayLike<number>;
  y: number;
  /** Rows of one photo (its augmented views) can be given less weight each; default 1. */
  weight?: number;
}

const K = PHOTO_CATEGORIES.length;

export function categoryIndex(c: PhotoCategory): number {
  return PHOTO_CATEGORIES.indexOf(c);
}

function softmaxInPlace(z: Float64Array): void {
  let m = -Infinity;
  for (const v of z) m = Math.max(m, v);
  let s = 0;
  for (let i = 0; i < z.length; i++) {
    z[i] = Math.exp(z[i] - m);
    s += z[i];
  }
  for (let i = 0; i < z.length; i++) z[i] /= s;
}

/**
 * Full-batch gradient descent with Adam steps on the mean weighted cross-entropy plus
 * l2/2·|W|². Zero initial weights and a fixed number of steps make it reproducible bit for bit.
 */
export function trainProbe(rows: readonly TrainingRow[], o: TrainOptions): ProbeModel {
  if (rows.length === 0) throw new Error('probe: no training rows');
  const D = rows[0].x.length;
  const N = rows.length;
  const mean = new Float64Array(D);
  const sq = new Float64Array(D);
  for (const r of rows) for (let j = 0; j < D; j++) mean[j] += r.x[j] / N;
  for (const r of rows)
    for (let j = 0; j < D; j++) {
      const d = r.x[j] - mean[j];
      sq[j] += (d * d) / N;
    }
  if (o.inputWeights && o.inputWeights.length !== D)
    throw new Error(`probe: ${o.inputWeights.length} input weights for ${D} inputs`);
  const scale = Array.from(sq, (v, j) => (v > 1e-12 ? (o.inputWeights?.[j] ?? 1) / Math.sqrt(v) : 0));
  const X = rows.map((r) => {
    const v = new Float64Array(D);
    for (let j = 0; j < D; j++) v[j] = (r.x[j] - mean[j]) * scale[j];
    return v;
  });
  const counts = new Array<number>(K).fill(0);
  for (const r of rows) counts[r.y] += r.weight ?? 1;
  const w = rows.map((r) => (r.weight ?? 1) * (o.balanced === false ? 1 : N / (K * Math.max(counts[r.y], 1e-9))));
  const wSum = w.reduce((a, b) => a + b, 0);

  const W = Array.from({ length: K }, () => new Float64Array(D));
  const b = new Float64Array(K);
  const mW = Array.from({ length: K }, () => new Float64Array(D));
  const vW = Array.from({ length: K }, () => new Float64Array(D));
  const mb = new Float64Array(K);
  const vb = new Float64Array(K);
  const lr = o.learningRate ?? 0.01;
  const steps = o.iterations ?? 300;
  const [b1, b2, eps] = [0.9, 0.999, 1e-8];
  const gW = Array.from({ length: K }, () => new Float64Array(D));
  const gb = new Float64Array(K);
  const z = new Float64Array(K);
  const smooth = o.labelSmoothing ?? 0;
  const target = (k: number, y: number) => (k === y ? 1 - smooth : smooth / (K - 1));
  for (let t = 1; t <= steps; t++) {
    for (let k = 0; k < K; k++) {
      gW[k].fill(0);
      for (let j = 0; j < D; j++) gW[k][j] = o.l2 * W[k][j];
    }
    gb.fill(0);
    for (let i = 0; i < N; i++) {
      const x = X[i];
      for (let k = 0; k < K; k++) {
        let s = b[k];
        const wk = W[k];
        for (let j = 0; j < D; j++) s += wk[j] * x[j];
        z[k] = s;
      }
      softmaxInPlace(z);
      const wi = w[i] / wSum;
      for (let k = 0; k < K; k++) {
        const g = (z[k] - target(k, rows[i].y)) * wi;
        if (g === 0) continue;
        gb[k] += g;
        const gk = gW[k];
        for (let j = 0; j < D; j++) gk[j] += g * x[j];
      }
    }
    const c1 = 1 - b1 ** t;
    const c2 = 1 - b2 ** t;
    for (let k = 0; k < K; k++) {
      for (let j = 0; j < D; j++) {
        const g = gW[k][j];
        mW[k][j] = b1 * mW[k][j] + (1 - b1) * g;
        vW[k][j] = b2 * vW[k][j] + (1 - b2) * g * g;
        W[k][j] -= (lr * mW[k][j]) / c1 / (Math.sqrt(vW[k][j] / c2) + eps);
      }
      mb[k] = b1 * mb[k] + (1 - b1) * gb[k];
      vb[k] = b2 * vb[k] + (1 - b2) * gb[k] * gb[k];
      b[k] -= (lr * mb[k]) / c1 / (Math.sqrt(vb[k] / c2) + eps);
    }
  }
  return { mean: Array.from(mean), scale, weights: W.map((r) => Array.from(r)), bias: Array.from(b) };
}

/** Class probabilities in PHOTO_CATEGORIES order. */
export function predictProbe(model: ProbeModel, x: ArrayLike<number>): number[] {
  const D = model.mean.length;
  if (x.length !== D) throw new Error(`probe: expected ${D} inputs, got ${x.length}`);
  const z = new Float64Array(K);
  for (let k = 0; k < K; k++) {
    let s = model.bias[k];
    const wk = model.weights[k];
    for (let j = 0; j < D; j++) s += wk[j] * (x[j] - model.mean[j]) * model.scale[j];
    z[k] = s;
  }
  softmaxInPlace(z);
  return Array.from(z);
}

/** Indices 0..n-1 dealt into `folds` folds by a fixed stride, so the folds never depend on a seed. */
export function foldOf(i: number, folds: number): number {
  return i % folds;
}
