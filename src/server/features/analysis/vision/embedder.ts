import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createRequire } from 'node:module';
import { inceptionToOnnx, type KerasLayer, type NamedWeights } from './onnx-export';
import { tf, packageDir } from './runtime';

/**
 * Whole-image embedding from the InceptionV3 bundled with nsfwjs. The network was fine-tuned for
 * content moderation, so its last block (mixed10) is task-specific; the blocks before it still
 * carry general ImageNet features. Each chosen block is global-average-pooled and square-rooted
 * (power normalisation damps the few very large ReLU activations), then the blocks are concatenated.
 * Which blocks and which input side are chosen by cross-validation
 * (scripts/build-reference-embeddings.ts) and recorded in assets/reference-embeddings.json; the
 * engine cuts the network after the deepest of them. The measurements behind the choice are in
 * bench/README.md. EMBEDDING_LAYERS and EMBEDDING_INPUT are the defaults for callers without a file.
 */
export const EMBEDDING_LAYER = 'mixed9';
export const EMBEDDING_INPUT = 224;
/** nsfwjs model folder the embedding network comes from. */
export const EMBEDDING_MODEL = 'inception_v3';

/** Inception blocks whose pooled outputs make up the embedding, in order (see loadEmbedder). */
export const EMBEDDING_LAYERS: readonly string[] = [EMBEDDING_LAYER];

export interface RgbImage {
  data: Uint8Array;
  width: number;
  height: number;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

/**
 * nsfwjs ships its weights as UMD .min.js modules (model JSON object and base64 weight
 * shards) so browsers can bundle them. We evaluate them with Node's require from disk —
 * no network, no tfjs fetch — and hand tfjs an in-memory IOHandler.
 */
export async function loadNsfwjsArtifacts(modelName: string, nodeModulesDir?: string): Promise<tf.io.ModelArtifacts> {
  const dir = path.join(packageDir('nsfwjs', nodeModulesDir), 'dist', 'models', modelName);
  const req = createRequire(import.meta.url);
  const model: unknown = req(path.join(dir, 'model.min.js'));
  if (!isRecord(model) || !Array.isArray(model.weightsManifest)) {
    throw new Error(`vision: unexpected nsfwjs model format in ${dir}`);
  }
  const weightSpecs: tf.io.WeightsManifestEntry[] = [];
  const shards: Buffer[] = [];
  for (const group of model.weightsManifest as unknown[]) {
    if (!isRecord(group) || !Array.isArray(group.paths) || !Array.isArray(group.weights)) {
      throw new Error('vision: bad weightsManifest group');
    }
    for (const w of group.weights as unknown[]) {
      if (!isRecord(w) || typeof w.name !== 'string' || !Array.isArray(w.shape) || typeof w.dtype !== 'string') {
        throw new Error('vision: bad weight spec');
      }
      // Kept whole: the specs carry uint8 `quantization` info needed to decode the shards.
      weightSpecs.push(w as unknown as tf.io.WeightsManifestEntry);
    }
    for (const p of group.paths as unknown[]) {
      if (typeof p !== 'string') throw new Error('vision: bad shard path');
      // Shard files are named like the manifest path plus `.min.js`.
      const shardFile = path.join(dir, `${p}.min.js`);
      const src = await readFile(shardFile, 'utf8').catch(() => undefined);
      if (src === undefined) throw new Error(`vision: bad weight shard ${shardFile}`);
      shards.push(Buffer.from(shardBase64(src, shardFile), 'base64'));
    }
  }
  const all = Buffer.concat(shards);
  const expected = weightSpecs.reduce((a, w) => a + weightBytes(w), 0);
  if (all.length !== expected) {
    throw new Error(`vision: ${modelName} weight shards hold ${all.length} bytes, the manifest ${expected}`);
  }
  const weightData = all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength);
  return {
    modelTopology: model.modelTopology as tf.io.ModelArtifacts['modelTopology'],
    format: typeof model.format === 'string' ? model.format : undefined,
    weightSpecs,
    weightData,
  };
}

/**
 * The base64 string a weight shard module exports, read from its text. Evaluating the module
 * instead (require) made V8 parse and compile ~30 MB of string literals as JavaScript and keep them
 * in the module cache for the life of each vision thread: about two seconds of CPU per thread at
 * every load. The shard is a browserify bundle with one module, `exports="<base64>"`; anything else
 * is refused.
 */
export function shardBase64(src: string, file: string): string {
  const marker = 'exports="';
  const start = src.indexOf(marker);
  const end = start < 0 ? -1 : src.indexOf('"', start + marker.length);
  if (start < 0 || end < 0 || src.indexOf(marker, end) >= 0) {
    throw new Error(`vision: unexpected weight shard format in ${file}`);
  }
  const b64 = src.slice(start + marker.length, end);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.length % 4 !== 0) {
    throw new Error(`vision: weight shard ${file} is not base64`);
  }
  return b64;
}

/** Bytes a weight takes in the shards: one per value when quantized to uint8/uint16, else its dtype's. */
function weightBytes(w: tf.io.WeightsManifestEntry): number {
  const count = w.shape.reduce((a, d) => a * d, 1);
  const q = w.quantization?.dtype;
  const per = q ? (q === 'uint8' ? 1 : 2) : w.dtype === 'bool' ? 1 : 4;
  return count * per;
}

export interface Embedder {
  readonly dims: number;
  /**
   * What runs the network: ONNX Runtime's native CPU kernels (InceptionV3, the shipped backbone;
   * ~2.5x less CPU than tfjs' WASM for the same numbers) or tfjs (other backbones, or where
   * onnxruntime-node cannot load).
   */
  readonly runtime: 'onnxruntime' | 'tfjs';
  /** Width of each pooled block, in the order of the layer names. */
  readonly layerDims: readonly number[];
  /** Square side of the input it expects. */
  readonly inputSize: number;
  embed(img: RgbImage): Promise<Float32Array>;
  /** Several photos in one call: one pass of the network over a batch costs less per photo. */
  embedBatch(imgs: readonly RgbImage[]): Promise<Float32Array[]>;
  /**
   * The embedding and, from the same run, the whole map of each block named in loadEmbedder's
   * rawBlocks (for poolings beyond the global mean, scripts/lib/pooling.ts). ONNX Runtime only.
   */
  embedBatchWithMaps?(
    imgs: readonly RgbImage[],
  ): Promise<{ embedding: Float32Array; maps: Record<string, BlockMap> }[]>;
  dispose(): void;
}

/** One photo's map of one block: channels x height x width values, channel by channel. */
export interface BlockMap {
  data: Float32Array;
  channels: number;
  height: number;
  width: number;
}

/**
 * The network cut after EMBEDDING_LAYER, at EMBEDDING_INPUT pixels square. Every layer up to the
 * cut is convolutional, so the same weights work at any input size; the classification head (a
 * flatten sized for 299 px) is dropped, which is also why the topology is rewritten, not reused.
 */
function truncatedTopology(
  artifacts: tf.io.ModelArtifacts,
  layerNames: readonly string[],
  inputSize: number,
): tf.io.ModelArtifacts['modelTopology'] {
  const topo = structuredClone(artifacts.modelTopology) as Record<string, unknown>;
  const cfg = (isRecord(topo.model_config) ? topo.model_config : topo) as { config?: Record<string, unknown> };
  const layers = cfg.config?.layers;
  if (!cfg.config || !Array.isArray(layers)) throw new Error('vision: unexpected InceptionV3 topology');
  const at = layerNames.map((name) => layers.findIndex((l: unknown) => isRecord(l) && l.name === name));
  const missing = layerNames.find((_, i) => at[i] < 0);
  if (missing) throw new Error(`vision: layer ${missing} not found`);
  const cut = Math.max(...at);
  const kept = layers.slice(0, cut + 1) as Record<string, unknown>[];
  for (const l of kept) {
    const c = l.config;
    if (isRecord(c) && Array.isArray(c.batch_input_shape)) c.batch_input_shape = [null, inputSize, inputSize, 3];
  }
  cfg.config.layers = kept;
  cfg.config.output_layers = layerNames.map((name) => [name, 0, 0]);
  return topo as tf.io.ModelArtifacts['modelTopology'];
}

/**
 * Several blocks can be pooled and concatenated (each square-rooted like the single one); the
 * network is run once, up to the deepest of them.
 */
export async function loadEmbedder(
  nodeModulesDir?: string,
  layerNames: readonly string[] = EMBEDDING_LAYERS,
  inputSize: number = EMBEDDING_INPUT,
  modelName: string = EMBEDDING_MODEL,
  runtime: Embedder['runtime'] = 'onnxruntime',
  rawBlocks: readonly string[] = [],
): Promise<Embedder> {
  const artifacts = await loadNsfwjsArtifacts(modelName, nodeModulesDir);
  if (runtime === 'onnxruntime' && modelName === 'inception_v3') {
    const ort = await loadOnnxRuntime();
    if (ort) return onnxEmbedder(ort, artifacts, layerNames, inputSize, rawBlocks);
  }
  if (rawBlocks.length > 0) throw new Error('vision: block maps need ONNX Runtime and InceptionV3');
  const full = await tf.loadLayersModel(tf.io.fromMemory(artifacts));
  const cut = (await tf.models.modelFromJSON(
    truncatedTopology(artifacts, layerNames, inputSize) as unknown as tf.io.ModelJSON,
  )) as tf.LayersModel;
  for (const layer of cut.layers) {
    const w = full.getLayer(layer.name).getWeights();
    if (w.length) layer.setWeights(w);
  }
  full.dispose();
  const pooledEach = cut.outputs.map((o) => tf.layers.globalAveragePooling2d({}).apply(o) as tf.SymbolicTensor);
  const pooled =
    pooledEach.length === 1
      ? pooledEach[0]!
      : (tf.layers.concatenate({ axis: -1 }).apply(pooledEach) as tf.SymbolicTensor);
  const model = tf.model({ inputs: cut.inputs, outputs: pooled });
  const dims = pooled.shape[pooled.shape.length - 1] ?? 0;
  // First predict compiles WASM kernels; doing it here keeps analyze() timings honest.
  tf.tidy(() => model.predict(tf.zeros([1, inputSize, inputSize, 3])));
  const embedBatch = async (imgs: readonly RgbImage[]): Promise<Float32Array[]> => {
    checkInputs(imgs, inputSize);
    if (imgs.length === 0) return [];
    const plane = inputSize * inputSize * 3;
    const all = new Uint8Array(plane * imgs.length);
    imgs.forEach((img, i) => all.set(img.data.subarray(0, plane), i * plane));
    const flat = tf.tidy(() => {
      // nsfwjs trained on [0,1] inputs.
      const x = tf.tensor4d(all, [imgs.length, inputSize, inputSize, 3], 'int32').toFloat().div(255);
      return (model.predict(x) as tf.Tensor).sqrt().dataSync() as Float32Array;
    });
    return imgs.map((_, i) => flat.slice(i * dims, (i + 1) * dims));
  };
  return {
    runtime: 'tfjs',
    dims,
    layerDims: pooledEach.map((p) => p.shape[p.shape.length - 1] ?? 0),
    inputSize,
    embed: async (img) => (await embedBatch([img]))[0]!,
    embedBatch,
    dispose() {
      cut.dispose();
    },
  };
}

function checkInputs(imgs: readonly RgbImage[], inputSize: number) {
  for (const img of imgs) {
    if (img.width !== inputSize || img.height !== inputSize) {
      throw new Error(`vision: embedder expects ${inputSize}x${inputSize} RGB`);
    }
  }
}

export type OnnxRuntime = typeof import('onnxruntime-node');

/** onnxruntime-node, or undefined where its native library cannot load (the tfjs path then runs). */
export async function loadOnnxRuntime(): Promise<OnnxRuntime | undefined> {
  try {
    return await import('onnxruntime-node');
  } catch {
    return undefined;
  }
}

/**
 * The same cut network run by ONNX Runtime: the Keras layers and weights are written as an ONNX
 * graph in memory (onnx-export.ts) and handed to a session with one thread, so each vision thread
 * keeps to its own core as before. `run` executes synchronously on the calling thread, which
 * keeps the vision thread's lowered priority.
 */
async function onnxEmbedder(
  ort: OnnxRuntime,
  artifacts: tf.io.ModelArtifacts,
  layerNames: readonly string[],
  inputSize: number,
  rawBlocks: readonly string[],
): Promise<Embedder> {
  const topo = artifacts.modelTopology as Record<string, unknown>;
  const cfg = (isRecord(topo.model_config) ? topo.model_config : topo) as { config?: { layers?: unknown } };
  if (!Array.isArray(cfg.config?.layers) || !artifacts.weightData || !artifacts.weightSpecs) {
    throw new Error('vision: unexpected InceptionV3 topology');
  }
  const named = tf.io.decodeWeights(artifacts.weightData as ArrayBuffer, artifacts.weightSpecs);
  const weights: NamedWeights = {};
  for (const [name, t] of Object.entries(named)) {
    weights[name] = { shape: t.shape, data: t.dataSync() as Float32Array };
    t.dispose();
  }
  const bytes = inceptionToOnnx(cfg.config.layers as KerasLayer[], weights, layerNames, inputSize, rawBlocks);
  const session = await ort.InferenceSession.create(bytes, {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const plane = inputSize * inputSize * 3;
  const runAll = async (pixels: Float32Array, n: number) =>
    session.run({ pixels: new ort.Tensor('float32', pixels, [n, inputSize, inputSize, 3]) });
  const run = async (pixels: Float32Array, n: number): Promise<Float32Array> => {
    const e = (await runAll(pixels, n)).embedding;
    if (!e || e.type !== 'float32') throw new Error('vision: ONNX embedding missing');
    return e.data as Float32Array;
  };
  // The first run plans memory and picks kernels; doing it here keeps analyze() timings honest.
  const probe = await run(new Float32Array(plane), 1);
  const dims = probe.length;
  const layerDims = layerNames.map((name) => {
    const concat = (cfg.config!.layers as KerasLayer[]).find((l) => l.name === name);
    return concat ? channelsOf(concat, weights, cfg.config!.layers as KerasLayer[]) : 0;
  });
  const pixelsOf = (imgs: readonly RgbImage[]): Float32Array => {
    const x = new Float32Array(plane * imgs.length);
    imgs.forEach((img, i) => {
      const d = img.data;
      const o = i * plane;
      for (let j = 0; j < plane; j++) x[o + j] = d[j]!;
    });
    return x;
  };
  const embedBatch = async (imgs: readonly RgbImage[]): Promise<Float32Array[]> => {
    checkInputs(imgs, inputSize);
    if (imgs.length === 0) return [];
    const flat = await run(pixelsOf(imgs), imgs.length);
    return imgs.map((_, i) => flat.slice(i * dims, (i + 1) * dims));
  };
  const embedBatchWithMaps = async (imgs: readonly RgbImage[]) => {
    checkInputs(imgs, inputSize);
    if (imgs.length === 0) return [];
    const out = await runAll(pixelsOf(imgs), imgs.length);
    const e = out.embedding;
    if (!e || e.type !== 'float32') throw new Error('vision: ONNX embedding missing');
    const flat = e.data as Float32Array;
    return imgs.map((_, i) => {
      const maps: Record<string, BlockMap> = {};
      for (const b of rawBlocks) {
        const t = out[`raw/${b}`];
        if (!t || t.type !== 'float32' || t.dims.length !== 4) throw new Error(`vision: ONNX map of ${b} missing`);
        const [, channels, height, width] = t.dims.map(Number) as [number, number, number, number];
        const size = channels * height * width;
        maps[b] = { data: (t.data as Float32Array).slice(i * size, (i + 1) * size), channels, height, width };
      }
      return { embedding: flat.slice(i * dims, (i + 1) * dims), maps };
    });
  };
  return {
    runtime: 'onnxruntime',
    dims,
    layerDims,
    inputSize,
    embed: async (img) => (await embedBatch([img]))[0]!,
    embedBatch,
    embedBatchWithMaps,
    dispose() {
      void session.release();
    },
  };
}

/** Output channels of a layer: a convolution's filters, or the sum over a concatenation's inputs. */
function channelsOf(layer: KerasLayer, weights: NamedWeights, layers: readonly KerasLayer[]): number {
  const byName = (n: string) => layers.find((l) => l.name === n);
  const walk = (l: KerasLayer): number => {
    if (l.class_name === 'Conv2D') return weights[`${l.name}/kernel`]?.shape[3] ?? 0;
    const first = l.inbound_nodes[0];
    const inputs = Array.isArray(first) ? first.map((x: unknown) => (Array.isArray(x) ? String(x[0]) : '')) : [];
    if (l.class_name === 'Concatenate') return inputs.reduce((a, n) => a + walk(byName(n)!), 0);
    return inputs.length ? walk(byName(inputs[0]!)!) : 0;
  };
  return walk(layer);
}
