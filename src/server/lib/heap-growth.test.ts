import { HEAP_GROWING_PERCENT, tuneHeapGrowth } from './heap-growth';

describe('tuneHeapGrowth (how far the server heap grows between full collections)', () => {
  it('sets V8 to grow the old generation by HEAP_GROWING_PERCENT', () => {
    const set: string[] = [];
    expect(tuneHeapGrowth(['--enable-source-maps'], (f) => set.push(f))).toBe(true);
    expect(set).toEqual([`--heap-growing-percent=${HEAP_GROWING_PERCENT}`]);
    expect(HEAP_GROWING_PERCENT).toBeGreaterThanOrEqual(100);
  });

  it('leaves a growth given to node on the command line alone', () => {
    for (const given of ['--heap-growing-percent=30', '--heap_growing_percent=30', '--heap-growing-percent']) {
      const set: string[] = [];
      expect(tuneHeapGrowth(['--trace-gc', given], (f) => set.push(f))).toBe(false);
      expect(set).toEqual([]);
    }
  });
});
