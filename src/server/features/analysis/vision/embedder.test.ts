import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ensureTfWasm, packageDir } from './runtime';
import { loadEmbedder, shardBase64, type RgbImage } from './embedder';
import { poolBlock } from '../../../../../scripts/lib/pooling';

function pattern(side: number, seed: number): RgbImage {
  const data = new Uint8Array(side * side * 3);
  for (let i = 0; i < data.length; i++) data[i] = (i * 31 + seed * 97 + ((i / 3 / side) | 0) * seed) % 256;
  return { data, width: side, height: side };
}

describe('embedder (real MobileNetV2 weights from nsfwjs)', () => {
  it('a batch gives each photo the vector it gets alone, block by block', { timeout: 120_000 }, async () => {
    await ensureTfWasm();
    const e = await loadEmbedder(undefined, ['block_16_expand_relu', 'out_relu'], 96, 'mobilenet_v2');
    expect(e.runtime).toBe('tfjs');
    expect(e.layerDims).toEqual([960, 1280]);
    expect(e.dims).toBe(2240);
    const a = pattern(96, 1);
    const b = pattern(96, 2);
    const [ba, bb] = await e.embedBatch([a, b]);
    const alone = [await e.embed(a), await e.embed(b)];
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
    await expect(e.embed(pattern(64, 1))).rejects.toThrow(/expects 96x96/);
    e.dispose();
  });
});

describe('embedder (real InceptionV3 weights from nsfwjs)', () => {
  it('ONNX Runtime gives the numbers tfjs gives, batched or not', { timeout: 180_000 }, async () => {
    await ensureTfWasm();
    const blocks = ['mixed8', 'mixed9'];
    const onnx = await loadEmbedder(undefined, blocks, 96, 'inception_v3', 'onnxruntime');
    const tfjs = await loadEmbedder(undefined, blocks, 96, 'inception_v3', 'tfjs');
    expect(onnx.runtime).toBe('onnxruntime');
    expect(onnx.dims).toBe(tfjs.dims);
    expect(onnx.layerDims).toEqual(tfjs.layerDims);
    const a = pattern(96, 3);
    const b = pattern(96, 4);
    const [oa, ob] = await onnx.embedBatch([a, b]);
    const [ta, tb] = [await tfjs.embed(a), await tfjs.embed(b)];
    for (const [o, t] of [
      [oa!, ta!],
      [ob!, tb!],
    ] as const) {
      let worst = 0;
      for (let i = 0; i < t.length; i++) worst = Math.max(worst, Math.abs(o[i]! - t[i]!));
      expect(worst).toBeLessThan(1e-3);
    }
    let apart = 0;
    for (let i = 0; i < oa!.length; i++) apart += Math.abs(oa![i]! - ob![i]!);
    expect(apart).toBeGreaterThan(0.1);
    await expect(onnx.embed(pattern(64, 1))).rejects.toThrow(/expects 96x96/);
    onnx.dispose();
    tfjs.dispose();
  });
});

describe('block maps from the same ONNX run (feature groups)', () => {
  it(
    'each block map pools to the embedding the graph computes, photo by photo in a batch',
    { timeout: 180_000 },
    async () => {
      await ensureTfWasm();
      const e = await loadEmbedder(undefined, ['mixed7', 'mixed8'], 96, 'inception_v3', 'onnxruntime', [
        'mixed7',
        'mixed8',
      ]);
      const imgs = [pattern(96, 5), pattern(96, 6)];
      const runs = await e.embedBatchWithMaps!(imgs);
      const plain = await e.embedBatch(imgs);
      runs.forEach((r, i) => {
        expect(Array.from(r.embedding)).toEqual(Array.from(plain[i]!));
        const m7 = r.maps.mixed7!;
        const m8 = r.maps.mixed8!;
        expect([m7.channels, m8.channels]).toEqual(e.layerDims);
        const pooled = [
          ...poolBlock(m7.data, m7.channels, m7.height, m7.width, 'mean'),
          ...poolBlock(m8.data, m8.channels, m8.height, m8.width, 'mean'),
        ];
        let worst = 0;
        pooled.forEach((v, j) => (worst = Math.max(worst, Math.abs(v - r.embedding[j]!))));
        expect(worst).toBeLessThan(1e-5);
      });
      // The two photos' maps are their own, not one photo's twice.
      expect(runs[0]!.maps.mixed8!.data).not.toEqual(runs[1]!.maps.mixed8!.data);
      e.dispose();
      await expect(loadEmbedder(undefined, ['mixed8'], 96, 'inception_v3', 'tfjs', ['mixed8'])).rejects.toThrow(
        /block maps need ONNX Runtime/,
      );
    },
  );
});

describe('nsfwjs weight shards', () => {
  it('are read from their text as the bytes evaluating the module gives, and anything else is refused', async () => {
    // The smallest InceptionV3 shard (1.8 MB): evaluating it is what the engine no longer does.
    const file = path.join(packageDir('nsfwjs'), 'dist', 'models', 'inception_v3', 'group1-shard6of6.min.js');
    const evaluated: unknown = createRequire(import.meta.url)(file);
    expect(typeof evaluated).toBe('string');
    expect(shardBase64(await readFile(file, 'utf8'), file)).toBe(evaluated);
    expect(() => shardBase64('module.exports=1', 'x')).toThrow(/unexpected weight shard format/);
    expect(() => shardBase64('a.exports="QQ==";b.exports="QQ=="', 'x')).toThrow(/unexpected weight shard format/);
    expect(() => shardBase64('h.exports="not base64!"', 'x')).toThrow(/not base64/);
  });
});
