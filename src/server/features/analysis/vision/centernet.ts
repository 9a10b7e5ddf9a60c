import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { InferenceSession } from 'onnxruntime-node';
import { tf } from './runtime';
import { graphToOnnx, type GraphNode, type GraphWeights } from './graph-onnx';
import type { OnnxRuntime } from './embedder';

/**
 * CenterNet (the COCO object detector @vladmandic/human ships) with its network run by ONNX
 * Runtime: written as ONNX in memory from the same weights (graph-onnx.ts), ~3x less CPU than tfjs'
 * WASM backend. ONNX Runtime runs the network up to two maps: the class heat map's peaks (a value
 * where it is the largest of its 3x3 neighbourhood, else 0: exact operations, so the same map tfjs
 * computes from the same heat) and the box sizes; what the model does after them (top 100, boxes)
 * stays tfjs' own execution of the model's graph from those two maps,
 * and the decoding after that is Human's, step for step (same thresholds, same rounding), so the
 * objects are the ones Human's own CenterNet call returns.
 */

/** COCO's 80 classes in the model's output order. */
const COCO = [
  'person',
  'bicycle',
  'car',
  'motorcycle',
  'airplane',
  'bus',
  'train',
  'truck',
  'boat',
  'traffic light',
  'fire hydrant',
  'stop sign',
  'parking meter',
  'bench',
  'bird',
  'cat',
  'dog',
  'horse',
  'sheep',
  'cow',
  'elephant',
  'bear',
  'zebra',
  'giraffe',
  'backpack',
  'umbrella',
  'handbag',
  'tie',
  'suitcase',
  'frisbee',
  'skis',
  'snowboard',
  'sports ball',
  'kite',
  'baseball bat',
  'baseball glove',
  'skateboard',
  'surfboard',
  'tennis racket',
  'bottle',
  'wine glass',
  'cup',
  'fork',
  'knife',
  'spoon',
  'bowl',
  'banana',
  'apple',
  'sandwich',
  'orange',
  'broccoli',
  'carrot',
  'hot dog',
  'pizza',
  'donut',
  'cake',
  'chair',
  'couch',
  'potted plant',
  'bed',
  'dining table',
  'toilet',
  'tv',
  'laptop',
  'mouse',
  'remote',
  'keyboard',
  'cell phone',
  'microwave',
  'oven',
  'toaster',
  'sink',
  'refrigerator',
  'book',
  'clock',
  'vase',
  'scissors',
  'teddy bear',
  'hair drier',
  'toothbrush',
] as const;

const INPUT = 'tower_0/images';
/** The heat map's peaks (max pool, equal, cast, multiply): ~25 ms less CPU per run than in tfjs. */
const PEAKS = 'tower_0/mul_1';
const SIZES = 'tower_0/wh';
const DETECTIONS = 'tower_0/detections';
const SIDE = 512;

/** Human's object settings the engine uses (detectors.ts). */
export interface ObjectSettings {
  minConfidence: number;
  maxDetected: number;
  iouThreshold: number;
}

/** One object, its box in pixels of the frame given (Human's `box`, truncated like Human's). */
export interface PixelObject {
  label: string;
  score: number;
  box: [number, number, number, number];
}

export interface ObjectDetector {
  /** `frame`: [1, height, width, 3] float RGB 0..255. */
  detect(frame: tf.Tensor4D): Promise<PixelObject[]>;
  /** The two maps the ONNX network computes, channels last (for the equality test). */
  maps(frame: tf.Tensor4D): Promise<{ peaks: Float32Array; sizes: Float32Array }>;
  dispose(): void;
}

/** A tfjs graph model's files from a folder: topology, and weights decoded as tfjs decodes them. */
export async function readGraphModel(dir: string, name: string) {
  const json = JSON.parse(await readFile(path.join(dir, `${name}.json`), 'utf8')) as {
    format?: string;
    signature?: { inputs?: Record<string, { name: string }>; outputs?: Record<string, { name: string }> };
    modelTopology: { node: GraphNode[] };
    weightsManifest: { paths: string[]; weights: tf.io.WeightsManifestEntry[] }[];
  };
  const specs = json.weightsManifest.flatMap((g) => g.weights);
  const shards = await Promise.all(
    json.weightsManifest.flatMap((g) => g.paths).map((p) => readFile(path.join(dir, p))),
  );
  const all = Buffer.concat(shards);
  const weightData = all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength);
  const weights: GraphWeights = {};
  for (const [k, t] of Object.entries(tf.io.decodeWeights(weightData, specs))) {
    weights[k] = { shape: t.shape, data: t.dataSync() as Float32Array | Int32Array };
    t.dispose();
  }
  const artifacts: tf.io.ModelArtifacts = {
    modelTopology: json.modelTopology as unknown as tf.io.ModelArtifacts['modelTopology'],
    format: json.format,
    weightSpecs: specs,
    weightData,
  };
  /** A signature key (what tfjs calls inputs and outputs when the model has a signature) to its node. */
  const nodeOf = (key: string) => {
    const named = json.signature?.outputs?.[key] ?? json.signature?.inputs?.[key];
    return (named?.name ?? key).replace(/:0$/, '');
  };
  return { nodes: json.modelTopology.node, weights, artifacts, nodeOf };
}

export async function loadCenterNet(
  ort: OnnxRuntime,
  modelsDir: string,
  settings: ObjectSettings,
): Promise<ObjectDetector> {
  const { nodes, weights, artifacts } = await readGraphModel(modelsDir, 'centernet');
  const bytes = graphToOnnx(nodes, weights, { input: INPUT, inputShape: [1, SIDE, SIDE, 3], outputs: [PEAKS, SIZES] });
  const session: InferenceSession = await ort.InferenceSession.create(bytes, {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  // The model's own tail (top 100, boxes) from the two maps: cheap, and exactly tfjs'.
  const tail = await tf.loadGraphModel(tf.io.fromMemory(artifacts));

  const maps = async (frame: tf.Tensor4D) => {
    // Human resizes the frame to the network's side the same way.
    const pixels = tf.tidy(() => tf.image.resizeBilinear(frame, [SIDE, SIDE]));
    try {
      const out = await session.run({
        pixels: new ort.Tensor('float32', pixels.dataSync() as Float32Array, [1, SIDE, SIDE, 3]),
      });
      const peaks = out.output0;
      const sizes = out.output1;
      if (peaks?.type !== 'float32' || sizes?.type !== 'float32') throw new Error('vision: CenterNet maps missing');
      return {
        peaks: peaks.data as Float32Array,
        sizes: sizes.data as Float32Array,
        peakDims: peaks.dims,
        sizeDims: sizes.dims,
      };
    } finally {
      pixels.dispose();
    }
  };

  return {
    maps,
    async detect(frame) {
      const width = frame.shape[2];
      const height = frame.shape[1];
      const m = await maps(frame);
      const peaks = tf.tensor(m.peaks, [...m.peakDims]);
      const sizes = tf.tensor(m.sizes, [...m.sizeDims]);
      const found = tail.execute({ [PEAKS]: peaks, [SIZES]: sizes }, [DETECTIONS]) as tf.Tensor;
      peaks.dispose();
      sizes.dispose();
      // Human's decoding: [x1, y1, x2, y2, score, class] rows, boxes as [y1, x1, y2, x2] for NMS.
      const rows = (await found.array()) as number[][][];
      const t = tf.tidy(() => {
        const s = tf.squeeze(found);
        const cols = tf.split(s, 6, 1);
        return {
          boxes: tf.squeeze(tf.stack([cols[1]!, cols[0]!, cols[3]!, cols[2]!], 1)) as tf.Tensor2D,
          scores: tf.squeeze(cols[4]!) as tf.Tensor1D,
        };
      });
      found.dispose();
      const kept = await tf.image.nonMaxSuppressionAsync(
        t.boxes,
        t.scores,
        settings.maxDetected,
        settings.iouThreshold,
        settings.minConfidence,
      );
      const order = await kept.data();
      tf.dispose([t.boxes, t.scores, kept]);
      const out: PixelObject[] = [];
      for (const i of Array.from(order)) {
        const r = rows[0]![i]!;
        const cls = r[5]!;
        if (Number.isNaN(cls)) continue;
        const x = r[0]! / SIDE;
        const y = r[1]! / SIDE;
        const raw = [x, y, r[2]! / SIDE - x, r[3]! / SIDE - y];
        out.push({
          label: COCO[cls] ?? 'unknown',
          score: Math.trunc(100 * r[4]!) / 100,
          box: [
            Math.trunc(raw[0]! * width),
            Math.trunc(raw[1]! * height),
            Math.trunc(raw[2]! * width),
            Math.trunc(raw[3]! * height),
          ],
        });
      }
      return out;
    },
    dispose() {
      tail.dispose();
      void session.release();
    },
  };
}
