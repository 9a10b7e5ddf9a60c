import { mulberry32, mulberry32Step, pickRandom, randomInt, shuffle } from './random';

describe('mulberry32', () => {
  it('is deterministic for a seed and differs across seeds', () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    const c = mulberry32(43);
    const seqA = [a(), a(), a()];
    expect([b(), b(), b()]).toEqual(seqA);
    expect([c(), c(), c()]).not.toEqual(seqA);
  });

  it('yields floats in [0, 1)', () => {
    const r = mulberry32(7);
    for (let i = 0; i < 1000; i++) {
      const v = r();
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThan(1);
    }
  });

  it('the pure step reproduces the closure', () => {
    const r = mulberry32(99);
    let state = 99;
    for (let i = 0; i < 5; i++) {
      const step = mulberry32Step(state);
      expect(step.value).toBe(r());
      state = step.state;
    }
  });
});

describe('shuffle / pickRandom / randomInt', () => {
  it('shuffle keeps the same items and does not mutate the input', () => {
    const items = [1, 2, 3, 4, 5, 6];
    const out = shuffle(items, mulberry32(1));
    expect(items).toEqual([1, 2, 3, 4, 5, 6]);
    expect([...out].sort()).toEqual(items);
  });

  it('pickRandom returns distinct items, capped at the input size', () => {
    const picked = pickRandom(['a', 'b', 'c', 'd'], 3, mulberry32(5));
    expect(new Set(picked).size).toBe(3);
    expect(pickRandom(['a', 'b'], 8, mulberry32(5))).toHaveLength(2);
    expect(pickRandom(['a'], -1, mulberry32(5))).toEqual([]);
  });

  it('randomInt stays in [min, max)', () => {
    expect(randomInt(3, 4, () => 0.999999)).toBe(3);
    expect(randomInt(0, 10, () => 0)).toBe(0);
    expect(randomInt(0, 10, () => 0.99)).toBe(9);
  });
});
