import { ensureTfWasm } from './runtime';
import { loadEmbedder, type RgbImage } from './embedder';

function pattern(side: number, seed: number): RgbImage {
  const data = new Uint8Array(side * side * 3);
  for (let i = 0; i < data.length; i++) data[i] = (i * 31 + seed * 97 + ((i / 3 / side) | 0) * seed) % 256;
  return { data, width: side, height: side };
}

describe('embedder (real MobileNetV2 weights from nsfwjs)', () => {
  it('a batch gives each photo the vector it gets alone, block by block', { timeout: 120_000 }, async () => {
    await ensureTfWasm();
    const e = await loadEmbedder(undefined, ['block_16_expand_relu', 'out_relu'], 96, 'mobilenet_v2');
    expect(e.layerDims).toEqual([960, 1280]);
    expect(e.dims).toBe(2240);
    const a = pattern(96, 1);
    const b = pattern(96, 2);
    const [ba, bb] = e.embedBatch([a, b]);
    const alone = [e.embed(a), e.embed(b)];
    for (const [batched, single] of [
      [ba!, alone[0]!],
      [bb!, alone[1]!],
    ] as const) {
      expect(batched.length).toBe(2240);
      let worst = 0;
      for (let i = 0; i < single.length; i++) worst = Math.max(worst, Math.abs(batched[i]! - single[i]!));
      expect(worst).toBeLessThan(1e-3);
    }
    // Two different photos must not come out the same (the batch is not one photo repeated).
    expect(Math.abs(ba![0]! - bb![0]!) + Math.abs(ba![100]! - bb![100]!)).toBeGreaterThan(0);
    expect(() => e.embed(pattern(64, 1))).toThrow(/expects 96x96/);
    e.dispose();
  });
});
