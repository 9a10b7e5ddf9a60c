import { describe, expect, it } from 'vitest';
import { predictProbe, trainProbe } from '../../src/server/features/analysis/classifier/probe';
import { fitWhitening, standardiser, trainMlp } from './mlp';

/** Deterministic pseudo-random values in [-1, 1). */
function values(n: number, seed: number): number[] {
  let s = seed;
  return Array.from({ length: n }, () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return (s / 2147483648) * 2 - 1;
  });
}

describe('fitWhitening', () => {
  it('gives the training rows uncorrelated components of unit variance, largest first', () => {
    // 40 rows of 12 values driven by 3 hidden factors of very different size, plus a little noise.
    const f = values(120, 7);
    const noise = values(480, 11);
    const rows = Array.from({ length: 40 }, (_, i) =>
      Float64Array.from({ length: 12 }, (__, j) => {
        const [a, b, c] = [f[i * 3]! * 10, f[i * 3 + 1]! * 3, f[i * 3 + 2]!];
        return a * ((j % 3) + 1) + b * (j % 2 ? 1 : -1) + c * (j < 6 ? 1 : -1) + noise[i * 12 + j]! * 0.01;
      }),
    );
    const whiten = fitWhitening(rows, 3);
    const Z = rows.map(whiten);
    expect(Z[0]).toHaveLength(3);
    const mean = [0, 1, 2].map((k) => Z.reduce((s, z) => s + z[k]!, 0) / Z.length);
    const cov = (k: number, l: number) => Z.reduce((s, z) => s + (z[k]! - mean[k]!) * (z[l]! - mean[l]!), 0) / Z.length;
    for (let k = 0; k < 3; k++) {
      expect(mean[k]).toBeCloseTo(0, 6);
      expect(cov(k, k)).toBeCloseTo(1, 6);
      for (let l = k + 1; l < 3; l++) expect(cov(k, l)).toBeCloseTo(0, 6);
    }
    // The first component follows the largest factor.
    const corr = Z.reduce((s, z, i) => s + z[0]! * f[i * 3]!, 0);
    expect(Math.abs(corr) / Z.length).toBeGreaterThan(0.5);
  });
});

describe('trainMlp', () => {
  it('separates classes no linear probe can (XOR), the same way on every run', () => {
    const pts = values(400, 3);
    const X = Array.from({ length: 200 }, (_, i) => Float64Array.from([pts[2 * i]!, pts[2 * i + 1]!]));
    const y = X.map((x) => (x[0]! * x[1]! > 0 ? 0 : 1));
    const net = trainMlp(X, y, { hidden: 16, l2: 1e-4, steps: 400, learningRate: 0.03 });
    const right = X.filter((x, i) => net.predict(x).indexOf(Math.max(...net.predict(x))) === y[i]).length;
    expect(right / X.length).toBeGreaterThan(0.9);
    const linear = trainProbe(
      X.map((x, i) => ({ x, y: y[i]! })),
      { l2: 1e-4, iterations: 400 },
    );
    const linearRight = X.filter((x, i) => {
      const p = predictProbe(linear, x);
      return p.indexOf(Math.max(...p)) === y[i];
    }).length;
    expect(linearRight / X.length).toBeLessThan(0.75);
    const again = trainMlp(X, y, { hidden: 16, l2: 1e-4, steps: 400, learningRate: 0.03 });
    expect(again.predict(X[5]!)).toEqual(net.predict(X[5]!));
  });

  it('reports its progress for early stopping', () => {
    const X = [Float64Array.from([1, 0]), Float64Array.from([0, 1])];
    const steps: number[] = [];
    trainMlp(X, [0, 1], { hidden: 4, l2: 0, steps: 100 }, { every: 25, call: (s) => steps.push(s) });
    expect(steps).toEqual([25, 50, 75, 100]);
  });
});

describe('standardiser', () => {
  it('centres and scales each input, times its weight', () => {
    const s = standardiser([Float64Array.from([1, 10]), Float64Array.from([3, 30])], [1, 2]);
    expect(Array.from(s(Float64Array.from([3, 30])))).toEqual([1, 2]);
  });
});
