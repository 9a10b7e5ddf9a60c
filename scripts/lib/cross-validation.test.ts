import { featureRow, groupMatrix } from './cross-validation';

describe('a feature cache row', () => {
  it('puts the groups end to end, in their order', () => {
    const row = featureRow([{ v: [1, 2] }, { v: Float32Array.from([3]) }, { v: [4, 5, 6] }]);
    expect(row).toBeInstanceOf(Float32Array);
    expect(Array.from(row)).toEqual([1, 2, 3, 4, 5, 6]);
  });
});

describe("a candidate's input matrix", () => {
  it("gives each entry its groups' values end to end, and each value its group's weight", () => {
    const cache = [
      [1, 2, 3],
      [4, 5, 6],
    ];
    const { X, weights } = groupMatrix(
      [0, 1],
      [
        { dims: 1, weight: 3, values: (e: number) => cache[e]!.slice(2) },
        { dims: 2, weight: 1, values: (e: number) => cache[e]!.slice(0, 2) },
      ],
    );
    expect(X.map((v) => Array.from(v))).toEqual([
      [3, 1, 2],
      [6, 4, 5],
    ]);
    expect(Array.from(weights)).toEqual([3, 1, 1]);
  });
});
