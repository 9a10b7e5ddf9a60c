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
});
