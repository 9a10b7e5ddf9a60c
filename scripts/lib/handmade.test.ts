import { HANDMADE_DIMS, HANDMADE_NAMES, handmadeFeatures, type Pixels } from './handmade';

function image(side: number, colour: (x: number, y: number) => [number, number, number]): Pixels {
  const data = new Uint8Array(side * side * 3);
  for (let y = 0; y < side; y++) for (let x = 0; x < side; x++) data.set(colour(x, y), (y * side + x) * 3);
  return { data, width: side, height: side };
}

const at = (f: Float32Array, name: string): number => f[HANDMADE_NAMES.indexOf(name)]!;

describe('hand-made photo statistics', () => {
  it('a plain white photo: all white, grey, plain border, no edges', () => {
    const f = handmadeFeatures(image(16, () => [255, 255, 255]));
    expect(f.length).toBe(HANDMADE_DIMS);
    expect(at(f, 'white_share')).toBe(1);
    expect(at(f, 'grey_share')).toBe(1);
    expect(at(f, 'border_plain_share')).toBe(1);
    expect(at(f, 'edge_share')).toBe(0);
    expect(at(f, 'top_b')).toBe(1);
  });

  it('blue sky above green ground: colour by band and one horizontal edge', () => {
    const f = handmadeFeatures(image(30, (_, y) => (y < 15 ? [120, 170, 250] : [30, 100, 20])));
    expect(at(f, 'top_b')).toBeGreaterThan(0.85);
    expect(at(f, 'bottom_g')).toBeGreaterThan(0.35);
    expect(at(f, 'bottom_b')).toBeLessThan(0.2);
    // The gradient across a horizontal line points up or down: 90 degrees, bin 4 of 8.
    expect(at(f, 'orientation_4')).toBeCloseTo(1, 6);
    expect(at(f, 'axis_aligned_share')).toBeCloseTo(1, 6);
    expect(at(f, 'saturation_mean')).toBeGreaterThan(0.6);
  });

  it('diagonal stripes are not axis-aligned; vertical stripes are', () => {
    const diag = handmadeFeatures(image(32, (x, y) => ((x + y) % 8 < 4 ? [0, 0, 0] : [255, 255, 255])));
    expect(at(diag, 'axis_aligned_share')).toBeLessThan(0.2);
    const vert = handmadeFeatures(image(32, (x) => (x % 8 < 4 ? [0, 0, 0] : [255, 255, 255])));
    expect(at(vert, 'orientation_0')).toBeCloseTo(1, 6);
    expect(at(vert, 'edge_share')).toBeGreaterThan(0.3);
  });

  it('refuses too small an image', () => {
    expect(() => handmadeFeatures({ data: new Uint8Array(12), width: 2, height: 2 })).toThrow(/at least 3x3/);
  });
});
