/** Vector arithmetic on embeddings (plain arrays, no tfjs), shared by the classifiers. */

export type Vector = ArrayLike<number>;

export function dot(a: Vector, b: Vector): number {
  if (a.length !== b.length) throw new Error(`dimension mismatch ${a.length} vs ${b.length}`);
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

export function norm(a: Vector): number {
  return Math.sqrt(dot(a, a));
}

export function cosineSimilarity(a: Vector, b: Vector): number {
  const d = norm(a) * norm(b);
  return d === 0 ? 0 : dot(a, b) / d;
}

export function normalize(a: Vector): Float32Array {
  const n = norm(a);
  const out = new Float32Array(a.length);
  if (n === 0) return out;
  for (let i = 0; i < a.length; i++) out[i] = a[i] / n;
  return out;
}

/** Mean of unit vectors, re-normalised, so every reference photo weighs the same. */
export function centroidOf(vectors: readonly Vector[]): Float32Array {
  if (vectors.length === 0) throw new Error('centroid of empty set');
  const sum = new Float32Array(vectors[0].length);
  for (const v of vectors) {
    const u = normalize(v);
    for (let i = 0; i < u.length; i++) sum[i] += u[i];
  }
  return normalize(sum);
}
