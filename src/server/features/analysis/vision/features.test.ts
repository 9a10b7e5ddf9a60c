import { handmadeFeatures, HANDMADE_DIMS } from '../classifier/handmade';
import { blocksOf, featureVector, featureWidth, parseFeatureGroup } from './features';
import { poolBlock } from './pooling';
import type { BlockMap, RgbImage } from './embedder';

function blockMap(channels: number, side: number, seed: number): BlockMap {
  const data = new Float32Array(channels * side * side);
  for (let i = 0; i < data.length; i++) data[i] = ((i * 37 + seed * 11) % 50) / 7;
  return { data, channels, height: side, width: side };
}

const pixels: RgbImage = {
  data: Uint8Array.from({ length: 8 * 8 * 3 }, (_, i) => (i * 29) % 256),
  width: 8,
  height: 8,
};

describe('the probe input built from feature groups', () => {
  it('concatenates the named poolings and hand-made statistics in the given order', () => {
    const maps = { mixed7: blockMap(3, 4, 1), mixed8: blockMap(2, 5, 2) };
    const names = ['mixed8/mean', 'mixed7/grid2', 'handmade', 'mixed8/max'];
    const v = featureVector(names, maps, pixels);
    expect(v.length).toBe(featureWidth(names, { mixed7: 3, mixed8: 2 }));
    expect(v.length).toBe(2 + 12 + HANDMADE_DIMS + 2);
    const want = [
      ...poolBlock(maps.mixed8.data, 2, 5, 5, 'mean'),
      ...poolBlock(maps.mixed7.data, 3, 4, 4, 'grid2'),
      ...handmadeFeatures(pixels),
      ...poolBlock(maps.mixed8.data, 2, 5, 5, 'max'),
    ];
    expect(Array.from(v)).toEqual(want);
    expect(blocksOf(names)).toEqual(['mixed8', 'mixed7']);
  });

  it('refuses unknown groups and missing maps', () => {
    expect(parseFeatureGroup('mixed9/halves')).toEqual({ kind: 'halves', block: 'mixed9' });
    expect(() => parseFeatureGroup('mixed9/median')).toThrow(/unknown feature group/);
    expect(() => parseFeatureGroup('mixed9')).toThrow(/unknown feature group/);
    expect(() => featureVector(['mixed6/mean'], {}, pixels)).toThrow(/map of mixed6 is missing/);
  });
});
