import type { InferenceSession } from 'onnxruntime-node';
import { readGraphModel } from '../../src/server/features/analysis/vision/centernet';
import { graphToOnnx } from '../../src/server/features/analysis/vision/graph-onnx';
import type { OnnxRuntime, RgbImage } from '../../src/server/features/analysis/vision/embedder';

/**
 * The backbone of CenterNet (the COCO detector @vladmandic/human ships, a MobileNetV3 trained on
 * ImageNet and then on COCO), cut after its last maps and run by ONNX Runtime on the embedding's own
 * input (the 224 px square InceptionV3 sees), for scripts/vision-features-coco.ts. The channel means of
 * its maps are a second view of the photo beside the moderation-tuned InceptionV3, for ~6 ms of CPU
 * per photo: cross-validated on the tuning part, the embedding with them answered 3.3 points more
 * photos right, but on the test part 2.5 points fewer than the shipped model (bench/README.md, acc8),
 * so the engine does not use it. (The engine path that read it as `bb224/<map>` feature groups is in
 * branch acc8's history, commit ffce8bb.)
 */

/** The maps a reference file may name as `bb224/<name>`, by their node in the detector's graph. */
export const COCO_BACKBONE_MAPS = {
  extern1: { node: 'tower_0/extern1/hard_swish/mul_1', channels: 480 },
  expand14: { node: 'tower_0/MobilenetV3/expanded_conv_14/expand/hard_swish/mul_1', channels: 720 },
} as const;
export type CocoBackboneMap = keyof typeof COCO_BACKBONE_MAPS;
export const isCocoBackboneMap = (name: string): name is CocoBackboneMap => Object.hasOwn(COCO_BACKBONE_MAPS, name);

/** The side the backbone is run at: the embedding's input, so no resize is needed. */
export const COCO_BACKBONE_SIDE = 224;

export interface CocoBackbone {
  /** Each asked-for map's channel means, for one square image of COCO_BACKBONE_SIDE. */
  means(img: RgbImage): Promise<Record<CocoBackboneMap, Float32Array>>;
  release(): Promise<void>;
}

/** Channels-last [1, h, w, c] values -> the mean of each channel. */
export function channelMeans(data: Float32Array, channels: number): Float32Array {
  const n = data.length / channels;
  const sum = new Float64Array(channels);
  for (let i = 0; i < n; i++) for (let k = 0; k < channels; k++) sum[k] += data[i * channels + k]!;
  return Float32Array.from(sum, (s) => s / n);
}

export async function loadCocoBackbone(
  ort: OnnxRuntime,
  modelsDir: string,
  maps: readonly CocoBackboneMap[],
): Promise<CocoBackbone> {
  const { nodes, weights } = await readGraphModel(modelsDir, 'centernet');
  const bytes = graphToOnnx(nodes, weights, {
    input: 'tower_0/images',
    inputShape: [1, COCO_BACKBONE_SIDE, COCO_BACKBONE_SIDE, 3],
    outputs: maps.map((m) => COCO_BACKBONE_MAPS[m].node),
  });
  // One thread, like every other session of a vision thread: each thread keeps to its own core.
  const session: InferenceSession = await ort.InferenceSession.create(bytes, {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  return {
    async means(img) {
      if (img.width !== COCO_BACKBONE_SIDE || img.height !== COCO_BACKBONE_SIDE) {
        throw new Error(`vision: the COCO backbone takes ${COCO_BACKBONE_SIDE} px squares`);
      }
      // The detector's graph takes RGB 0..255 as floats (Human feeds it so).
      const out = await session.run({
        pixels: new ort.Tensor('float32', Float32Array.from(img.data), [1, img.height, img.width, 3]),
      });
      const result = {} as Record<CocoBackboneMap, Float32Array>;
      maps.forEach((m, i) => {
        const t = out[`output${i}`];
        if (t?.type !== 'float32') throw new Error(`vision: COCO backbone map ${m} missing`);
        result[m] = channelMeans(t.data as Float32Array, COCO_BACKBONE_MAPS[m].channels);
      });
      return result;
    },
    release: () => session.release(),
  };
}
