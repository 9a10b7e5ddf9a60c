import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PhotoCategory } from '../../src/domain/photo-categories';
import {
  featureRow,
  groupCacheWriter,
  groupMatrix,
  loadFeatureCache,
  scorer,
  writeFeatureCache,
  wrongCostFrom,
  type LabelledEntry,
} from './cross-validation';

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

describe('a feature cache on disk', () => {
  let dir = '';
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'eyevu-feature-cache-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads back the rows and the index it was written with', async () => {
    const rows = [featureRow([{ v: [1, 2] }, { v: [3] }]), featureRow([{ v: [-4.5, 0] }, { v: [1e-7] }])];
    const index = {
      features: [
        { name: 'a', dims: 2 },
        { name: 'b', dims: 1 },
      ],
      width: 3,
      entries: [{ row: 0 }, { row: 1 }],
    };
    await writeFeatureCache(dir, rows, 3, index);
    const { index: read, all } = await loadFeatureCache<typeof index>(dir);
    expect(read).toEqual(index);
    expect(Array.from(all)).toEqual([...rows[0]!, ...rows[1]!]);
  });

  it('collects photos group by group and writes the index a feature script reads back', async () => {
    const cache = groupCacheWriter();
    const photo = (n: number) => ({ file: `photo${n}.jpg`, category: 'animals' as const, set: 'tune' as const });
    cache.add(photo(0), [
      { name: 'a', v: [1, 2] },
      { name: 'b', v: Float32Array.from([3]) },
    ]);
    cache.add(photo(1), [
      { name: 'a', v: [4, 5] },
      { name: 'b', v: [6] },
    ]);
    const written = await cache.write(dir, { run: 12.5 });
    const { index, all } = await loadFeatureCache<typeof written>(dir);
    expect(index).toEqual({
      features: [
        { name: 'a', dims: 2 },
        { name: 'b', dims: 1 },
      ],
      width: 3,
      entries: [
        { ...photo(0), row: 0 },
        { ...photo(1), row: 1 },
      ],
      cpuMs: { run: 12.5 },
    });
    expect(index).toEqual(written);
    expect(Array.from(all)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('refuses a photo whose groups differ from the first and writes nothing', async () => {
    const cache = groupCacheWriter();
    cache.add({ file: 'a.jpg', category: 'people', set: 'tune' }, [{ name: 'a', v: [1, 2] }]);
    expect(() => cache.add({ file: 'b.jpg', category: 'people', set: 'tune' }, [{ name: 'a', v: [1] }])).toThrow(
      'b.jpg: feature groups',
    );
    await expect(groupCacheWriter().write(dir, 0)).rejects.toThrow('no photos');
    expect(await readdir(dir)).toEqual([]);
  });

  it('refuses a row of another width and writes nothing', async () => {
    const rows = [Float32Array.from([1, 2, 3]), Float32Array.from([4, 5])];
    await expect(writeFeatureCache(dir, rows, 3, {})).rejects.toThrow('row 1 has 2 values, expected 3');
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('the cost of a wrong answer', () => {
  // 95 sure and right, then 5 unsure (p 0.5) of which 3 are right: abstaining on the unsure five
  // loses 3 right answers and 2 wrong ones.
  const photo = (i: number, category: PhotoCategory): LabelledEntry => ({
    file: `assets/reference-photos/${category}/photo${i}.jpg`,
    category,
    set: 'tune',
    detections: { objects: [], faces: [] },
  });
  const sure = [0.02, 0.9, 0.02, 0.02, 0.02, 0.02];
  const unsure = [0.1, 0.5, 0.1, 0.1, 0.1, 0.1];
  const tune = [
    ...Array.from({ length: 95 }, (_, i) => photo(i, 'animals')),
    ...[0, 1, 2].map((i) => photo(95 + i, 'animals')),
    ...[0, 1].map((i) => photo(98 + i, 'food_drink')),
  ];
  const probs = tune.map((_, i) => (i < 95 ? sure : unsure));
  const all = tune.map((_, i) => i);

  it('abstains on the unsure photos at a cost of 2 and answers them at a cost of 1', () => {
    const at2 = scorer(tune, 2);
    const t2 = at2.chooseThreshold(probs, all);
    expect(t2).toBeGreaterThan(0.5);
    expect(at2.score(probs, all, t2)).toEqual({ right: 95, given: 95, wrong: 0, n: 100 });
    const at1 = scorer(tune, 1);
    const t1 = at1.chooseThreshold(probs, all);
    expect(t1).toBe(0);
    expect(at1.score(probs, all, t1)).toEqual({ right: 98, given: 100, wrong: 2, n: 100 });
  });

  it('is 2 unless set, and refuses what is not a number >= 0', () => {
    expect(wrongCostFrom(undefined)).toBe(2);
    expect(wrongCostFrom('')).toBe(2);
    expect(wrongCostFrom('1.5')).toBe(1.5);
    expect(() => wrongCostFrom('cheap')).toThrow("VISION_WRONG_COST must be a number >= 0, got 'cheap'");
    expect(() => wrongCostFrom('-1')).toThrow('VISION_WRONG_COST must be a number >= 0');
  });
});
