import { neighbourModel } from './neighbours';

describe('the k-nearest-neighbour vote', () => {
  // Category 0 lies along the first axis, category 1 along the second; category 1 has one photo
  // for category 0's three, and the third value never varies.
  const rows = [
    { x: [1, 0.1, 5], y: 0 },
    { x: [1.2, 0, 5], y: 0 },
    { x: [0.9, 0.2, 5], y: 0 },
    { x: [0.1, 1, 5], y: 1 },
  ];
  const model = neighbourModel(rows, 3);

  it('votes for the category of the most similar photos', () => {
    const p = model.vote([1.1, 0.05, 5], 1);
    expect(p).toEqual([1, 0, 0]);
    expect(model.vote([0, 1.1, 5], 1)).toEqual([0, 1, 0]);
  });

  it('weighs each vote by the inverse of its category share, so numbers alone do not win', () => {
    // Among the two nearest of a point between the groups: one photo of each category; the rarer
    // category (a quarter of the rows) counts three times as much as the commoner (three quarters).
    const p = model.vote([0.5, 0.6, 5], 2);
    expect(p[0]).toBeCloseTo(0.25, 6);
    expect(p[1]).toBeCloseTo(0.75, 6);
    expect(p[2]).toBe(0);
  });

  it('refuses a vector of another width and an empty training set', () => {
    expect(() => model.vote([1, 0], 1)).toThrow('vector of 2 values, the rows have 3');
    expect(() => neighbourModel([], 2)).toThrow('no training rows');
  });
});
