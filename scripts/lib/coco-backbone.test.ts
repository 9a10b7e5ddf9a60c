import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { fromRoot } from '../../src/server/lib/paths';
import { decodeForModels } from '../../src/server/features/analysis/vision/engine';
import { loadOnnxRuntime } from '../../src/server/features/analysis/vision/embedder';
import { ensureTfWasm, packageDir } from '../../src/server/features/analysis/vision/runtime';
import { channelMeans, COCO_BACKBONE_MAPS, loadCocoBackbone } from './coco-backbone';

describe('the COCO detector backbone on the embedding input', () => {
  it('averages each channel of a channels-last map', () => {
    // 2 x 2 positions, 3 channels.
    const map = Float32Array.from([1, 10, 0, 3, 20, 0, 5, 30, 0, 7, 40, 4]);
    expect(Array.from(channelMeans(map, 3))).toEqual([4, 25, 1]);
  });

  it(
    'gives each asked-for map one mean per channel on a real photo, and only takes 224 px squares',
    { timeout: 120_000 },
    async () => {
      await ensureTfWasm();
      const ort = (await loadOnnxRuntime())!;
      const backbone = await loadCocoBackbone(ort, path.join(packageDir('@vladmandic/human'), 'models'), [
        'extern1',
        'expand14',
      ]);
      try {
        const decoded = await decodeForModels(
          await readFile(fromRoot('assets', 'demo-photos', 'picos-de-europa-mountains.jpg')),
        );
        const m = await backbone.means(decoded.embed);
        expect(m.extern1).toHaveLength(COCO_BACKBONE_MAPS.extern1.channels);
        expect(m.expand14).toHaveLength(COCO_BACKBONE_MAPS.expand14.channels);
        // A real photo excites the backbone: not a map of zeros or of one value.
        expect(Math.max(...m.extern1) - Math.min(...m.extern1)).toBeGreaterThan(0.1);
        // The same photo twice gives the same values (one thread, no state between runs).
        expect(Array.from((await backbone.means(decoded.embed)).extern1)).toEqual(Array.from(m.extern1));
        await expect(backbone.means(decoded.detect)).rejects.toThrow(/224 px squares/);
      } finally {
        await backbone.release();
      }
    },
  );
});
