/**
 * A k-nearest-neighbour vote over feature vectors (acc10's candidate beside the probe, measured by
 * scripts/classifier-candidates.ts): vectors are standardised by the training rows' mean and spread,
 * scaled to unit length and compared by cosine similarity; each neighbour's vote is divided by its
 * category's share of the training rows, as the probe is trained class-balanced, so a category with
 * many photos does not win by numbers alone.
 */
export interface NeighbourRow {
  x: ArrayLike<number>;
  y: number;
}

export function neighbourModel(rows: readonly NeighbourRow[], classes: number) {
  if (rows.length === 0) throw new Error('no training rows');
  const D = rows[0]!.x.length;
  const mean = new Float64Array(D);
  const spread = new Float64Array(D);
  for (const r of rows) for (let j = 0; j < D; j++) mean[j]! += r.x[j]! / rows.length;
  for (const r of rows) for (let j = 0; j < D; j++) spread[j]! += (r.x[j]! - mean[j]!) ** 2 / rows.length;
  // A value that never varies in training says nothing: it is left at 0 rather than divided by 0.
  for (let j = 0; j < D; j++) spread[j] = Math.sqrt(spread[j]!) || Infinity;
  const unit = (x: ArrayLike<number>): Float32Array => {
    if (x.length !== D) throw new Error(`vector of ${x.length} values, the rows have ${D}`);
    const v = new Float32Array(D);
    let n = 0;
    for (let j = 0; j < D; j++) {
      v[j] = (x[j]! - mean[j]!) / spread[j]!;
      n += v[j]! * v[j]!;
    }
    const s = Math.sqrt(n) || 1;
    for (let j = 0; j < D; j++) v[j]! /= s;
    return v;
  };
  const train = rows.map((r) => unit(r.x));
  const share = new Array<number>(classes).fill(0);
  for (const r of rows) share[r.y]! += 1 / rows.length;
  return {
    /** The k most similar training rows' class-balanced votes, as probabilities summing to 1. */
    vote(x: ArrayLike<number>, k: number): number[] {
      const q = unit(x);
      const sims = train.map((t, i) => {
        let d = 0;
        for (let j = 0; j < D; j++) d += t[j]! * q[j]!;
        return { i, d };
      });
      sims.sort((a, b) => b.d - a.d || a.i - b.i);
      const votes = new Array<number>(classes).fill(0);
      for (const { i } of sims.slice(0, k)) votes[rows[i]!.y]! += 1 / share[rows[i]!.y]!;
      const total = votes.reduce((a, b) => a + b, 0);
      return votes.map((v) => v / total);
    },
  };
}
