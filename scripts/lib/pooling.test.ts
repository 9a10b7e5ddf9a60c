import { halfRange, poolBlock, pooledWidth } from './pooling';

/** A 2-channel 3x3 map: channel 0 counts 0..8 row by row, channel 1 is 4 everywhere but one 100. */
function map(): Float32Array {
  const m = new Float32Array(18);
  for (let i = 0; i < 9; i++) m[i] = i;
  m.fill(4, 9);
  m[9 + 8] = 100;
  return m;
}

describe('block poolings', () => {
  it('halves of an odd side share the middle cell', () => {
    expect(halfRange(5, 0)).toEqual([0, 3]);
    expect(halfRange(5, 1)).toEqual([2, 5]);
    expect(halfRange(12, 0)).toEqual([0, 6]);
    expect(halfRange(12, 1)).toEqual([6, 12]);
  });

  it('mean and max per channel, square-rooted', () => {
    const mean = poolBlock(map(), 2, 3, 3, 'mean');
    expect(mean[0]).toBe(2);
    expect(mean[1]).toBeCloseTo(Math.sqrt((8 * 4 + 100) / 9), 5);
    const max = poolBlock(map(), 2, 3, 3, 'max');
    expect(Array.from(max)).toEqual([Math.sqrt(8), 10].map(Math.fround));
  });

  it('a 2x2 grid keeps where things are: quarters top-left, top-right, bottom-left, bottom-right', () => {
    const g = poolBlock(map(), 2, 3, 3, 'grid2');
    expect(g.length).toBe(pooledWidth('grid2', 2));
    // Channel 0, rows 0-1 x cols 0-1 = 0,1,3,4; cols 1-2 = 1,2,4,5; rows 1-2: 3,4,6,7 and 4,5,7,8.
    const q = (vals: number[]) => Math.fround(Math.sqrt(vals.reduce((a, b) => a + b, 0) / vals.length));
    expect(g[0]).toBeCloseTo(q([0, 1, 3, 4]), 5);
    expect(g[2]).toBeCloseTo(q([1, 2, 4, 5]), 5);
    expect(g[4]).toBeCloseTo(q([3, 4, 6, 7]), 5);
    expect(g[6]).toBeCloseTo(q([4, 5, 7, 8]), 5);
    // Channel 1: the strong value sits in the bottom-right quarter only.
    expect(g[1]).toBe(2);
    expect(g[3]).toBe(2);
    expect(g[5]).toBe(2);
    expect(g[7]).toBeCloseTo(q([4, 4, 4, 100]), 5);
  });

  it('halves: top then bottom, channel by channel', () => {
    const h = poolBlock(map(), 2, 3, 3, 'halves');
    // Channel 0: rows 0-1 = 0..5, rows 1-2 = 3..8; channel 1: the 100 is in the bottom half only.
    const want = [Math.sqrt(15 / 6), 2, Math.sqrt(33 / 6), Math.sqrt((5 * 4 + 100) / 6)];
    expect(h.length).toBe(4);
    // Order: top of every channel, then bottom of every channel.
    [want[0], want[1], want[2], want[3]].forEach((v, i) => expect(h[i]).toBeCloseTo(v!, 5));
  });

  it('refuses a map of the wrong size', () => {
    expect(() => poolBlock(new Float32Array(17), 2, 3, 3, 'mean')).toThrow(/not 2x3x3/);
  });
});
