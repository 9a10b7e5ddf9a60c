import { PHOTO_CATEGORIES } from '@domain/photo-categories';
import { categoryIndex, predictProbe, trainProbe, type TrainingRow } from './probe';

/** Six clusters in 8 dimensions, one per category, with a deterministic wobble. */
function clusters(perClass: number[], noise = 0.3): TrainingRow[] {
  const rows: TrainingRow[] = [];
  perClass.forEach((n, y) => {
    for (let i = 0; i < n; i++) {
      const x = Array.from({ length: 8 }, (_, j) => (j === y ? 2 : 0) + noise * Math.sin(7 * i + 3 * j + y));
      rows.push({ x, y });
    }
  });
  return rows;
}

describe('softmax probe', () => {
  it('learns separable classes and returns probabilities in category order', () => {
    const model = trainProbe(clusters([10, 10, 10, 10, 10, 10]), { l2: 0.01, iterations: 200, learningRate: 0.05 });
    for (let y = 0; y < PHOTO_CATEGORIES.length; y++) {
      const x = Array.from({ length: 8 }, (_, j) => (j === y ? 2 : 0));
      const p = predictProbe(model, x);
      expect(p.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 6);
      expect(p.indexOf(Math.max(...p))).toBe(y);
    }
    expect(categoryIndex('food_drink')).toBe(2);
  });

  it('is deterministic: the same rows give the same model bit for bit', () => {
    const rows = clusters([5, 6, 7, 5, 6, 7]);
    const a = trainProbe(rows, { l2: 0.1, iterations: 50 });
    const b = trainProbe(rows, { l2: 0.1, iterations: 50 });
    expect(a).toEqual(b);
  });

  it('balances classes: a rare class is not swallowed by a common one', () => {
    // Class 0 is 20x more common and its cluster overlaps class 1 on the boundary point.
    const rows = clusters([60, 3, 0, 0, 0, 0], 0.8);
    const boundary = [1, 1, 0, 0, 0, 0, 0, 0];
    const balanced = predictProbe(trainProbe(rows, { l2: 0.01, iterations: 200, learningRate: 0.05 }), boundary);
    const plain = predictProbe(
      trainProbe(rows, { l2: 0.01, iterations: 200, learningRate: 0.05, balanced: false }),
      boundary,
    );
    expect(balanced[1] / balanced[0]).toBeGreaterThan(plain[1] / plain[0]);
  });

  it('ignores constant inputs and rejects a vector of the wrong length', () => {
    const rows = clusters([4, 4, 4, 4, 4, 4]).map((r) => ({ ...r, x: [...Array.from(r.x), 5] }));
    const model = trainProbe(rows, { l2: 0.01, iterations: 20 });
    expect(model.scale[8]).toBe(0);
    expect(() => predictProbe(model, [1, 2, 3])).toThrow(/expected 9 inputs/);
    expect(() => trainProbe([], { l2: 0 })).toThrow();
  });

  it('input weights give a group of inputs more or less say; weight 0 silences an input', () => {
    const rows = clusters([8, 8, 8, 8, 8, 8]);
    const plain = trainProbe(rows, { l2: 0.01, iterations: 100, learningRate: 0.05 });
    const ones = trainProbe(rows, {
      l2: 0.01,
      iterations: 100,
      learningRate: 0.05,
      inputWeights: new Array(8).fill(1),
    });
    expect(ones).toEqual(plain);
    // Silenced, input 2 no longer moves the answer; with its normal weight it does.
    const silenced = trainProbe(rows, {
      l2: 0.01,
      iterations: 100,
      learningRate: 0.05,
      inputWeights: [1, 1, 0, 1, 1, 1, 1, 1],
    });
    expect(silenced.scale[2]).toBe(0);
    const low = [0, 0, 0, 0, 0, 0, 0, 0];
    const high = [0, 0, 3, 0, 0, 0, 0, 0];
    expect(predictProbe(silenced, high)).toEqual(predictProbe(silenced, low));
    expect(predictProbe(plain, high)[2]).toBeGreaterThan(predictProbe(plain, low)[2] + 0.01);
    // A doubled weight is a doubled standardised input.
    const doubled = trainProbe(rows, { l2: 0.01, iterations: 1, inputWeights: new Array(8).fill(2) });
    expect(doubled.scale[0]).toBeCloseTo(2 * plain.scale[0]!, 12);
    expect(() => trainProbe(rows, { l2: 0.01, inputWeights: [1, 2] })).toThrow(/2 input weights for 8 inputs/);
  });

  it('label smoothing keeps the probabilities off the extremes', () => {
    const rows = clusters([8, 8, 8, 8, 8, 8], 0.1);
    const opts = { l2: 0, iterations: 400, learningRate: 0.05 };
    const x = [2, 0, 0, 0, 0, 0, 0, 0];
    const hard = predictProbe(trainProbe(rows, opts), x)[0];
    const soft = predictProbe(trainProbe(rows, { ...opts, labelSmoothing: 0.2 }), x)[0];
    expect(hard).toBeGreaterThan(0.95);
    expect(soft).toBeLessThan(0.85);
    expect(soft).toBeGreaterThan(0.7);
  });
});
