import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createRequire } from 'node:module';
import { tf, packageDir } from './runtime';

/**
 * Whole-image embedding from the InceptionV3 bundled with nsfwjs. The network was
 * fine-tuned for content moderation, so its last block (mixed10) is task-specific; the
 * `mixed9` block still carries general ImageNet features, and global average pooling
 * turns it into a fixed 2048-value vector, square-rooted (power normalisation, which
 * damps the few very large ReLU activations).
 *
 * Chosen by leave-one-out on the reference set (157 photos, nearest centroid, see
 * scripts/build-reference-embeddings.ts): mixed7 sqrt 78.3 %, mixed8 raw 79.6 %,
 * mixed8 sqrt 81.5 %, mixed9 raw 83.4 %, mixed9 sqrt 85.4 %, mixed8+mixed9 sqrt 84.1 %,
 * mixed10 raw 76.4 %; k-nearest-neighbours (k=5, any layer mix) was no better (at most 86.0 %).
 */
export const EMBEDDING_LAYER = 'mixed9';
export const EMBEDDING_INPUT = 299;

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
      const b64: unknown = src === undefined ? undefined : req(shardFile);
      if (typeof b64 !== 'string') throw new Error(`vision: bad weight shard ${shardFile}`);
      shards.push(Buffer.from(b64, 'base64'));
    }
  }
  const all = Buffer.concat(shards);
  const weightData = all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength);
  return {
    modelTopology: model.modelTopology as tf.io.ModelArtifacts['modelTopology'],
    format: typeof model.format === 'string' ? model.format : undefined,
    weightSpecs,
    weightData,
  };
}

export interface Embedder {
  readonly dims: number;
  embed(img: RgbImage): Float32Array;
  dispose(): void;
}

export async function loadEmbedder(nodeModulesDir?: string): Promise<Embedder> {
  const artifacts = await loadNsfwjsArtifacts('inception_v3', nodeModulesDir);
  const full = await tf.loadLayersModel(tf.io.fromMemory(artifacts));
  const layer = full.getLayer(EMBEDDING_LAYER);
  const pooled = tf.layers.globalAveragePooling2d({}).apply(layer.output) as tf.SymbolicTensor;
  const model = tf.model({ inputs: full.inputs, outputs: pooled });
  const dims = pooled.shape[pooled.shape.length - 1] ?? 0;
  // First predict compiles WASM kernels; doing it here keeps analyze() timings honest.
  tf.tidy(() => model.predict(tf.zeros([1, EMBEDDING_INPUT, EMBEDDING_INPUT, 3])));
  return {
    dims,
    embed(img) {
      if (img.width !== EMBEDDING_INPUT || img.height !== EMBEDDING_INPUT) {
        throw new Error(`vision: embedder expects ${EMBEDDING_INPUT}x${EMBEDDING_INPUT} RGB`);
      }
      return tf.tidy(() => {
        // nsfwjs trained on [0,1] inputs.
        const x = tf.tensor4d(img.data, [1, img.height, img.width, 3], 'int32').toFloat().div(255);
        const out = (model.predict(x) as tf.Tensor).sqrt();
        return out.dataSync() as Float32Array;
      });
    },
    dispose() {
      full.dispose();
    },
  };
}
