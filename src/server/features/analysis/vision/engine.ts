import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { fromRoot } from '../../../lib/paths';
import { PHOTO_CATEGORIES } from '@domain/photo-categories';
import { analyzePhoto, looksLikePeople, type PhotoAnalysis } from '../classifier/category-rules';
import { summarizeColours } from '../classifier/colours';
import type { Classification } from '../classifier/nearest-centroid';
import { predictProbe, type ProbeModel } from '../classifier/probe';
import { decideFromProbabilities, detectionFeatures, stackInputs, type CategoryModel } from '../classifier/stack';
import { ensureTfWasm } from './runtime';
import {
  EMBEDDING_INPUT,
  EMBEDDING_LAYERS,
  EMBEDDING_MODEL,
  loadEmbedder,
  type Embedder,
  type RgbImage,
} from './embedder';
import { loadDetector, type Detector, type Detections } from './detectors';

export { cosineSimilarity, normalize, centroidOf } from '../classifier/vectors';

/** Longest side fed to the detectors; CenterNet/BlazeFace resize internally anyway. */
const DETECTOR_MAX_SIDE = 512;

/** The trained category model (scripts/build-reference-embeddings.ts) and what it was trained on. */
export interface ReferenceEmbeddings extends CategoryModel {
  model: string;
  /** InceptionV3 blocks pooled into the embedding, in order. */
  layers: string[];
  dims: number;
  /** Square input side the embeddings were computed at. */
  inputSize: number;
  /**
   * The detectors join in through analyzePhoto's rules (a big person or face means people, a big
   * detected animal/vehicle/food decides) rather than through the learned stack.
   */
  detectorRules: boolean;
  /**
   * Probe confidence at or above which the detectors are skipped on a photo that does not lean
   * towards people (chosen by cross-validation: as often right as running them on every photo).
   * Above 1: never skipped.
   */
  detectorSkipConfidence: number;
}

export interface VisionEngineOptions {
  /** Folder with @vladmandic/human model files (default: node_modules/@vladmandic/human/models). */
  modelsDir?: string;
  /** Trained category model (default: assets/reference-embeddings.json under the package root). */
  referencePath?: string;
  /** node_modules folder, when module resolution from the bundle cannot find it. */
  nodeModulesDir?: string;
  /** Skip detectors (embedding + category only), e.g. for building the reference file. */
  detectors?: boolean;
}

export interface VisionResult extends PhotoAnalysis {
  classification: Classification;
  embedding: Float32Array;
  detections: Detections;
  /** False when the probe was confident enough to skip the detectors. */
  detectorsRun: boolean;
  embeddingMs: number;
  detectMs: number;
  totalMs: number;
}

export interface VisionEngine {
  load(): Promise<void>;
  analyze(image: Buffer): Promise<VisionResult>;
  embed(image: Buffer): Promise<Float32Array>;
  readonly loadMs: number | undefined;
  /** Releases threads, if any. */
  close(): Promise<void>;
}

export function defaultReferencePath(): string {
  return fromRoot('assets', 'reference-embeddings.json');
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

function parseProbe(v: unknown, inputs: number | undefined, what: string): ProbeModel {
  const nums = (a: unknown): number[] => {
    if (!Array.isArray(a) || a.some((x) => typeof x !== 'number'))
      throw new Error(`vision: bad ${what} in reference file`);
    return a as number[];
  };
  if (!isRecord(v) || !Array.isArray(v.weights)) throw new Error(`vision: ${what} missing from reference file`);
  const m: ProbeModel = {
    mean: nums(v.mean),
    scale: nums(v.scale),
    weights: v.weights.map((r) => nums(r)),
    bias: nums(v.bias),
  };
  const D = m.mean.length;
  if (
    (inputs !== undefined && D !== inputs) ||
    m.scale.length !== D ||
    m.weights.length !== PHOTO_CATEGORIES.length ||
    m.weights.some((r) => r.length !== D) ||
    m.bias.length !== PHOTO_CATEGORIES.length
  ) {
    throw new Error(`vision: ${what} in reference file has the wrong shape`);
  }
  return m;
}

/** Backbones the engine can cut and pool (nsfwjs ships both as Keras layers models). */
const BACKBONES = ['inception_v3', 'mobilenet_v2'] as const;

function backboneOf(model: string): string {
  const name = model.replace(/^nsfwjs\//, '');
  if (!(BACKBONES as readonly string[]).includes(name)) throw new Error(`vision: unknown embedding model ${model}`);
  return name;
}

export function parseReferenceEmbeddings(json: unknown): ReferenceEmbeddings {
  if (
    !isRecord(json) ||
    !Array.isArray(json.layers) ||
    typeof json.dims !== 'number' ||
    typeof json.minConfidence !== 'number' ||
    JSON.stringify(json.categories) !== JSON.stringify(PHOTO_CATEGORIES)
  ) {
    throw new Error('vision: reference file is malformed or from an older engine');
  }
  // Feature groups (poolings of the blocks' maps) were tried and never shipped; their engine path
  // went in the tenth session (git history before it has it). Refused, not read as plain means.
  if (json.features !== undefined) throw new Error('vision: this engine reads pooled means only, not feature groups');
  return {
    model: String(json.model),
    layers: json.layers.map(String),
    dims: json.dims,
    inputSize: typeof json.inputSize === 'number' ? json.inputSize : 0,
    minConfidence: json.minConfidence,
    detectorRules: json.detectorRules === true,
    detectorSkipConfidence: typeof json.detectorSkipConfidence === 'number' ? json.detectorSkipConfidence : 2,
    embedding: parseProbe(json.embedding, json.dims, 'embedding probe'),
    stack: json.stack === undefined ? undefined : parseProbe(json.stack, undefined, 'stack'),
  };
}

/** Decodes once, then derives each model's input; EXIF rotation applied so faces are upright. */
export async function decodeForModels(
  image: Buffer,
  embedSize: number = EMBEDDING_INPUT,
): Promise<{ embed: RgbImage; detect: RgbImage; thumb: RgbImage }> {
  const base = sharp(image, { failOn: 'error' }).rotate();
  const { data, info } = await base
    .resize(DETECTOR_MAX_SIDE, DETECTOR_MAX_SIDE, { fit: 'inside', withoutEnlargement: true })
    .flatten({ background: '#ffffff' })
    .removeAlpha()
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  const detect: RgbImage = {
    data: new Uint8Array(data.buffer, data.byteOffset, data.length),
    width: info.width,
    height: info.height,
  };
  const fromDetect = sharp(data, { raw: { width: info.width, height: info.height, channels: 3 } });
  // Squash (no crop) to the square input: the whole scene matters for the category.
  const e = await fromDetect.clone().resize(embedSize, embedSize, { fit: 'fill' }).raw().toBuffer();
  const t = await fromDetect.clone().resize(32, 32, { fit: 'fill' }).raw().toBuffer();
  return {
    detect,
    embed: { data: new Uint8Array(e.buffer, e.byteOffset, e.length), width: embedSize, height: embedSize },
    thumb: { data: new Uint8Array(t.buffer, t.byteOffset, t.length), width: 32, height: 32 },
  };
}

export type DecodedInputs = Awaited<ReturnType<typeof decodeForModels>>;

/**
 * The models and the inference on already-decoded pixels. Lives wherever tfjs runs: in process
 * (scripts, tests) or inside a vision thread (the server). Loads nothing until load() or the first
 * call; the models then stay in memory for the life of the thread. Calls are serialised because
 * tfjs' WASM backend runs one inference at a time per thread.
 */
export interface VisionCore {
  load(): Promise<void>;
  analyzeDecoded(inputs: DecodedInputs): Promise<VisionResult>;
  /**
   * Several photos: one pass of the embedding network over all of them (cheaper per photo than one
   * pass each), then the rest photo by photo. Same answers as analyzeDecoded on each.
   */
  analyzeDecodedBatch(inputs: readonly DecodedInputs[]): Promise<VisionResult[]>;
  embedDecoded(inputs: DecodedInputs): Promise<Float32Array>;
  readonly loadMs: number | undefined;
}

export function createVisionCore(options: VisionEngineOptions = {}): VisionCore {
  let loading: Promise<void> | undefined;
  let embedder: Embedder | undefined;
  let detector: Detector | undefined;
  let reference: ReferenceEmbeddings | undefined;
  let loadMs: number | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  const load = (): Promise<void> => {
    loading ??= (async () => {
      const t0 = performance.now();
      await ensureTfWasm(options.nodeModulesDir);
      if (options.referencePath !== '') {
        const refPath = options.referencePath ?? defaultReferencePath();
        reference = parseReferenceEmbeddings(JSON.parse(await readFile(refPath, 'utf8')));
      }
      // The network is cut after the blocks the category model was trained on.
      embedder = await loadEmbedder(
        options.nodeModulesDir,
        reference?.layers ?? EMBEDDING_LAYERS,
        EMBEDDING_INPUT,
        reference ? backboneOf(reference.model) : EMBEDDING_MODEL,
        'onnxruntime',
      );
      if (reference && (reference.dims !== embedder.dims || reference.inputSize !== EMBEDDING_INPUT)) {
        throw new Error(
          `vision: the reference file was built for another embedding (${reference.inputSize}px, ${reference.dims} values); ` +
            'run npx tsx scripts/vision-features.ts && npx tsx scripts/build-reference-embeddings.ts',
        );
      }
      if (options.detectors !== false) detector = await loadDetector(options.modelsDir, options.nodeModulesDir);
      loadMs = performance.now() - t0;
    })();
    // A failed load must not poison the engine forever.
    loading.catch(() => {
      loading = undefined;
    });
    return loading;
  };

  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn, fn);
    queue = run.catch(() => undefined);
    return run;
  };

  /** Everything after the embedding: probe, detectors unless the probe is confident, rules, tags. */
  const decide = async (
    ref: ReferenceEmbeddings,
    inputs: DecodedInputs,
    embedding: Float32Array,
    embeddingMs: number,
  ): Promise<VisionResult> => {
    const t2 = performance.now();
    const embeddingProbs = predictProbe(ref.embedding, embedding);
    // The detectors' own gate for the turned-frame face search: only when the embedding
    // already leans towards people (best or second-best category).
    const leaning = decideFromProbabilities(embeddingProbs, 0);
    // A confident probe on a photo that is not about people needs no detector evidence: the
    // rules would not change its category, and the detectors cost as much as the embedding.
    const confident =
      ref.detectorRules && leaning.similarity >= ref.detectorSkipConfidence && !looksLikePeople(leaning);
    const detections: Detections =
      detector && !confident
        ? await detector.detect(inputs.detect, { turnedFaces: looksLikePeople(leaning) })
        : { objects: [], faces: [] };
    const detectorsRun = detector !== undefined && !confident;
    const t3 = performance.now();
    const probs = ref.stack
      ? predictProbe(ref.stack, stackInputs(embeddingProbs, detectionFeatures(detections.objects, detections.faces)))
      : embeddingProbs;
    const classification: Classification = decideFromProbabilities(probs, ref.minConfidence);
    const colours = summarizeColours(inputs.thumb.data, inputs.thumb.width, inputs.thumb.height);
    const analysis = analyzePhoto({
      classification,
      categoryDecided: !ref.detectorRules,
      objects: detections.objects,
      faces: detections.faces,
      colours,
    });
    return {
      ...analysis,
      classification,
      embedding,
      detections,
      detectorsRun,
      embeddingMs,
      detectMs: t3 - t2,
      totalMs: embeddingMs + (performance.now() - t2),
    };
  };

  const analyzeBatch = async (batch: readonly DecodedInputs[]): Promise<VisionResult[]> => {
    await load();
    return serial(async () => {
      if (!embedder || !reference) throw new Error('vision: engine loaded without reference embeddings');
      const t1 = performance.now();
      const embeddings = await embedder.embedBatch(batch.map((b) => b.embed));
      const embeddingMs = (performance.now() - t1) / Math.max(batch.length, 1);
      const out: VisionResult[] = [];
      for (const [i, inputs] of batch.entries()) {
        out.push(await decide(reference, inputs, embeddings[i]!, embeddingMs));
      }
      return out;
    });
  };

  return {
    load,
    get loadMs() {
      return loadMs;
    },
    async embedDecoded(inputs) {
      await load();
      return serial(async () => {
        if (!embedder) throw new Error('vision: embedder not loaded');
        return (await embedder.embedBatch([inputs.embed]))[0]!;
      });
    },
    analyzeDecoded: async (inputs) => (await analyzeBatch([inputs]))[0]!,
    analyzeDecodedBatch: analyzeBatch,
  };
}

/** Decoding (sharp, off the JS thread) plus a core in this same thread: for scripts and tests. */
export function createVisionEngine(options: VisionEngineOptions = {}): VisionEngine {
  const core = createVisionCore(options);
  return {
    load: () => core.load(),
    get loadMs() {
      return core.loadMs;
    },
    async embed(image) {
      await core.load();
      return core.embedDecoded(await decodeForModels(image));
    },
    async analyze(image) {
      await core.load();
      const t0 = performance.now();
      const r = await core.analyzeDecoded(await decodeForModels(image));
      return { ...r, totalMs: performance.now() - t0 };
    },
    async close() {
      // Nothing to release: tfjs memory belongs to the process.
    },
  };
}
