/**
 * Two classifier candidates beside the linear probe, for scripts/classifier-candidates-coco.ts:
 * PCA whitening (fitted on the training rows only) and a one-hidden-layer MLP. Deterministic like
 * the probe (full batch, Adam, a seeded initialisation), so a cross-validated figure can be
 * reproduced exactly. Not used by the engine unless a candidate built on them is shipped.
 */
import { PHOTO_CATEGORIES } from '../../src/domain/photo-categories';

const K = PHOTO_CATEGORIES.length;

/** Per-input standardisation of the training rows, with a multiplier per input (group weights). */
export function standardiser(rows: readonly ArrayLike<number>[], inputWeights?: ArrayLike<number>) {
  const D = rows[0]!.length;
  const N = rows.length;
  const mean = new Float64Array(D);
  const sq = new Float64Array(D);
  for (const r of rows) for (let j = 0; j < D; j++) mean[j] += r[j]! / N;
  for (const r of rows)
    for (let j = 0; j < D; j++) {
      const d = r[j]! - mean[j]!;
      sq[j] += (d * d) / N;
    }
  const scale = Float64Array.from(sq, (v, j) => (v > 1e-12 ? (inputWeights?.[j] ?? 1) / Math.sqrt(v) : 0));
  return (x: ArrayLike<number>): Float64Array =>
    Float64Array.from({ length: D }, (_, j) => (x[j]! - mean[j]!) * scale[j]!);
}

/** Eigenvalues and eigenvectors (columns of v, row-major n x n) of a symmetric matrix, cyclic Jacobi. */
function symmetricEigen(a: Float64Array, n: number): { values: Float64Array; vectors: Float64Array } {
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i++) v[i * n + i] = 1;
  for (let sweep = 0; sweep < 30; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += a[p * n + q]! ** 2;
    if (off < 1e-18) break;
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = a[p * n + q]!;
        if (Math.abs(apq) < 1e-15) continue;
        const theta = (a[q * n + q]! - a[p * n + p]!) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const akp = a[k * n + p]!;
          const akq = a[k * n + q]!;
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k++) {
          const apk = a[p * n + k]!;
          const aqk = a[q * n + k]!;
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k * n + p]!;
          const vkq = v[k * n + q]!;
          v[k * n + p] = c * vkp - s * vkq;
          v[k * n + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  return { values: Float64Array.from({ length: n }, (_, i) => a[i * n + i]!), vectors: v };
}

/**
 * PCA of the (already standardised) training rows, through their N x N Gram matrix (N is far below
 * the width); the projection onto the first k components, each scaled to unit variance (whitened).
 */
export function fitWhitening(rows: readonly Float64Array[], k: number): (x: Float64Array) => Float64Array {
  const N = rows.length;
  const D = rows[0]!.length;
  const mean = new Float64Array(D);
  for (const r of rows) for (let j = 0; j < D; j++) mean[j] += r[j]! / N;
  const c = rows.map((r) => Float64Array.from(r, (x, j) => x - mean[j]!));
  const g = new Float64Array(N * N);
  for (let i = 0; i < N; i++)
    for (let l = i; l < N; l++) {
      let s = 0;
      const a = c[i]!;
      const b = c[l]!;
      for (let j = 0; j < D; j++) s += a[j]! * b[j]!;
      g[i * N + l] = s;
      g[l * N + i] = s;
    }
  const { values, vectors } = symmetricEigen(g, N);
  const order = Array.from(values.keys())
    .sort((x, y) => values[y]! - values[x]!)
    .slice(0, Math.min(k, N - 1));
  // Direction u = C^T v / sqrt(lambda); a row's score on it has variance lambda / N.
  const dirs = order.map((e) => {
    const lam = Math.max(values[e]!, 1e-12);
    const u = new Float64Array(D);
    for (let i = 0; i < N; i++) {
      const w = vectors[i * N + e]!;
      if (w === 0) continue;
      const r = c[i]!;
      for (let j = 0; j < D; j++) u[j] += w * r[j]!;
    }
    const f = 1 / Math.sqrt(lam) / Math.sqrt(lam / N);
    for (let j = 0; j < D; j++) u[j] *= f;
    return u;
  });
  return (x) =>
    Float64Array.from(dirs, (u) => {
      let s = 0;
      for (let j = 0; j < D; j++) s += (x[j]! - mean[j]!) * u[j]!;
      return s;
    });
}

/** A small deterministic generator for the initial weights. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface MlpOptions {
  hidden: number;
  /** Weight decay (L2 on both layers' weights, per row of data). */
  l2: number;
  steps: number;
  learningRate?: number;
  seed?: number;
}

export interface Mlp {
  predict(x: Float64Array): number[];
}

function softmax(z: Float64Array): void {
  let m = -Infinity;
  for (const v of z) m = Math.max(m, v);
  let s = 0;
  for (let i = 0; i < z.length; i++) {
    z[i] = Math.exp(z[i]! - m);
    s += z[i]!;
  }
  for (let i = 0; i < z.length; i++) z[i]! /= s;
}

/**
 * One hidden ReLU layer, class-balanced cross-entropy (as the probe), full-batch Adam. `onStep` is
 * called every `every` steps with the model so far (to follow a validation loss for early stopping).
 */
export function trainMlp(
  X: readonly Float64Array[],
  y: readonly number[],
  o: MlpOptions,
  onStep?: { every: number; call: (step: number, m: Mlp) => void },
): Mlp {
  const N = X.length;
  const D = X[0]!.length;
  const H = o.hidden;
  const rand = mulberry32(o.seed ?? 1);
  const a1 = Math.sqrt(6 / (D + H));
  const a2 = Math.sqrt(6 / (H + K));
  const W1 = Float64Array.from({ length: H * D }, () => (rand() * 2 - 1) * a1);
  const b1 = new Float64Array(H);
  const W2 = Float64Array.from({ length: K * H }, () => (rand() * 2 - 1) * a2);
  const b2 = new Float64Array(K);
  const params = [W1, b1, W2, b2];
  const decay = [true, false, true, false];
  const m = params.map((p) => new Float64Array(p.length));
  const v = params.map((p) => new Float64Array(p.length));
  const g = params.map((p) => new Float64Array(p.length));
  const counts = new Array<number>(K).fill(0);
  for (const c of y) counts[c]! += 1;
  const w = y.map((c) => N / (K * Math.max(counts[c]!, 1)));
  const wSum = w.reduce((s, x) => s + x, 0);
  const h = new Float64Array(H);
  const z = new Float64Array(K);
  const dh = new Float64Array(H);
  const forward = (x: Float64Array) => {
    for (let u = 0; u < H; u++) {
      let s = b1[u]!;
      const off = u * D;
      for (let j = 0; j < D; j++) s += W1[off + j]! * x[j]!;
      h[u] = s > 0 ? s : 0;
    }
    for (let k = 0; k < K; k++) {
      let s = b2[k]!;
      for (let u = 0; u < H; u++) s += W2[k * H + u]! * h[u]!;
      z[k] = s;
    }
    softmax(z);
  };
  const model: Mlp = {
    predict(x) {
      forward(x);
      return Array.from(z);
    },
  };
  const lr = o.learningRate ?? 0.003;
  const [beta1, beta2, eps] = [0.9, 0.999, 1e-8];
  for (let t = 1; t <= o.steps; t++) {
    params.forEach((p, i) => {
      const gi = g[i]!;
      if (decay[i]) for (let j = 0; j < p.length; j++) gi[j] = o.l2 * p[j]!;
      else gi.fill(0);
    });
    const [gW1, gb1, gW2, gb2] = g as [Float64Array, Float64Array, Float64Array, Float64Array];
    for (let i = 0; i < N; i++) {
      const x = X[i]!;
      forward(x);
      const wi = w[i]! / wSum;
      dh.fill(0);
      for (let k = 0; k < K; k++) {
        const gk = (z[k]! - (k === y[i] ? 1 : 0)) * wi;
        gb2[k] += gk;
        for (let u = 0; u < H; u++) {
          gW2[k * H + u] += gk * h[u]!;
          dh[u] += gk * W2[k * H + u]!;
        }
      }
      for (let u = 0; u < H; u++) {
        if (h[u]! <= 0) continue;
        const gu = dh[u]!;
        gb1[u] += gu;
        const off = u * D;
        for (let j = 0; j < D; j++) gW1[off + j] += gu * x[j]!;
      }
    }
    const c1 = 1 - beta1 ** t;
    const c2 = 1 - beta2 ** t;
    params.forEach((p, i) => {
      const gi = g[i]!;
      const mi = m[i]!;
      const vi = v[i]!;
      for (let j = 0; j < p.length; j++) {
        mi[j] = beta1 * mi[j]! + (1 - beta1) * gi[j]!;
        vi[j] = beta2 * vi[j]! + (1 - beta2) * gi[j]! ** 2;
        p[j] -= (lr * mi[j]!) / c1 / (Math.sqrt(vi[j]! / c2) + eps);
      }
    });
    if (onStep && t % onStep.every === 0) onStep.call(t, model);
  }
  return model;
}
