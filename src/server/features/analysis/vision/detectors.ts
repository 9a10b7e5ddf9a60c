import path from 'node:path';
import sharp from 'sharp';
import { createRequire } from 'node:module';
import type { Config, Human } from '@vladmandic/human';
import { tf, packageDir } from './runtime';
import { localModelBase, registerLocalModelRouter } from './local-io';
import { loadOnnxRuntime, type RgbImage } from './embedder';
import { loadCenterNet, type ObjectDetector, type ObjectSettings } from './centernet';
import { runGraphOnOnnx, type ExecutableGraph } from './onnx-sync';
import { THRESHOLDS, type DetectedObject, type DetectedFace } from '../classifier/detections';

export interface Detections {
  objects: DetectedObject[];
  faces: DetectedFace[];
}

/** Long side of a turned frame given to the face models. */
const FACE_SIDE = 512;

export interface DetectOptions {
  /**
   * Search a landscape-shaped photo turned 90° and 270° when nobody is found upright (default
   * true). The engine switches it off when the embedding does not lean towards people: the search
   * costs two more face passes, and only matters for people photos.
   */
  turnedFaces?: boolean;
}

export interface Detector {
  /** What runs CenterNet's network. */
  readonly objectsRuntime: 'onnxruntime' | 'tfjs';
  /** What runs BlazeFace's and FaceMesh's networks (Human does everything around them either way). */
  readonly facesRuntime: 'onnxruntime' | 'tfjs';
  detect(img: RgbImage, options?: DetectOptions): Promise<Detections>;
}

/**
 * COCO objects (CenterNet) and faces (BlazeFace + FaceMesh) from @vladmandic/human.
 * Everything else Human can do is switched off: each extra model costs load time and
 * per-image latency, and we only need counts and labels.
 */
/** A float batch of one; tidy() frees the int32 and intermediate tensors, so nothing leaks per photo. */
function toInput(img: RgbImage): tf.Tensor4D {
  return tf.tidy(
    () => tf.tensor3d(img.data, [img.height, img.width, 3], 'int32').toFloat().expandDims(0) as tf.Tensor4D,
  );
}

/** Human's object settings; CenterNet on ONNX Runtime decodes with the same ones. */
const OBJECTS: ObjectSettings = { minConfidence: 0.3, maxDetected: 20, iouThreshold: 0.4 };

export interface DetectorOptions {
  /**
   * Run the detectors' networks on ONNX Runtime (default) or all on tfjs inside Human (the
   * reference the ONNX path is tested against, and the fallback where onnxruntime-node cannot load).
   */
  runtime?: 'onnxruntime' | 'tfjs';
}

export async function loadDetector(
  modelsDir?: string,
  nodeModulesDir?: string,
  options: DetectorOptions = {},
): Promise<Detector> {
  registerLocalModelRouter();
  const dir = modelsDir ?? path.join(packageDir('@vladmandic/human', nodeModulesDir), 'models');
  const ort = options.runtime === 'tfjs' ? undefined : await loadOnnxRuntime();
  // CenterNet is ~85 % of the detectors' CPU; on ONNX Runtime it costs about a third.
  const onnxObjects: ObjectDetector | undefined = ort ? await loadCenterNet(ort, dir, OBJECTS) : undefined;
  const wasmDir = path.join(packageDir('@tensorflow/tfjs-backend-wasm', nodeModulesDir), 'dist');
  const config: Partial<Config> = {
    backend: 'wasm',
    wasmPath: wasmDir + path.sep,
    wasmPlatformFetch: false,
    modelBasePath: localModelBase(dir),
    cacheModels: false,
    debug: false,
    warmup: 'none',
    // Human is built for video: by default it reuses the previous frame's boxes when the input looks
    // similar enough. Photos are unrelated frames, so every call must run the models.
    cacheSensitivity: 0,
    async: false,
    filter: { enabled: false },
    face: {
      enabled: true,
      detector: {
        enabled: true,
        modelPath: 'blazeface.json',
        skipFrames: 0,
        skipTime: 0,
        maxDetected: 20,
        minConfidence: 0.5,
        rotation: false,
        return: false,
      },
      // FaceMesh re-scores each BlazeFace crop; cat and dog faces pass BlazeFace but fail the mesh.
      mesh: { enabled: true, modelPath: 'facemesh.json' },
      iris: { enabled: false },
      description: { enabled: false },
      emotion: { enabled: false },
      antispoof: { enabled: false },
      liveness: { enabled: false },
      attention: { enabled: false },
      gear: { enabled: false },
    },
    body: { enabled: false },
    hand: { enabled: false },
    gesture: { enabled: false },
    segmentation: { enabled: false },
    object: {
      // Not loaded into Human at all when ONNX Runtime runs it.
      enabled: !onnxObjects,
      modelPath: 'centernet.json',
      skipFrames: 0,
      skipTime: 0,
      ...OBJECTS,
    },
  } as Partial<Config>;
  // Human's package `exports` would pick its tfjs-node build under Node, which cannot be
  // installed here; its node-wasm build shares the CJS @tensorflow/tfjs-core we use, so
  // it is required by absolute path — lazily, so importing this module loads nothing.
  const humanPath = path.join(packageDir('@vladmandic/human', nodeModulesDir), 'dist', 'human.node-wasm.js');
  const mod: unknown = createRequire(import.meta.url)(humanPath);
  const HumanCtor = (mod as { Human?: new (c: Partial<Config>) => Human }).Human;
  if (typeof HumanCtor !== 'function') throw new Error('vision: @vladmandic/human node-wasm build has no Human export');
  const human = new HumanCtor(config);
  await human.load();
  // Human calls its face models synchronously; their networks move to ONNX Runtime underneath it.
  const loaded = (human.models as unknown as { models: Record<string, ExecutableGraph | null | undefined> }).models;
  let facesOnOnnx = false;
  if (ort) {
    const moved = await Promise.all(
      ['blazeface', 'facemesh'].map((name) => {
        const m = loaded[name];
        return m ? runGraphOnOnnx(ort, m, dir, name) : false;
      }),
    );
    facesOnOnnx = moved.every(Boolean);
  }
  const objectsAndFaces = { face: { enabled: true }, object: { enabled: !onnxObjects } } as Partial<Config>;
  const facesOnly = { face: { enabled: true }, object: { enabled: false } } as Partial<Config>;
  return {
    objectsRuntime: onnxObjects ? 'onnxruntime' : 'tfjs',
    facesRuntime: facesOnOnnx ? 'onnxruntime' : 'tfjs',
    async detect(img, options = {}) {
      const input = toInput(img);
      try {
        // Human's typings reference its own bundled tfjs Tensor type; the runtime object is the shared CJS tfjs.
        // Upright faces, and objects too when CenterNet runs inside Human (one call's input
        // handling, not two); CenterNet on ONNX Runtime reads the same frame next. Which faces
        // count is decided in analyzePhoto (a person box around them, a scene that looks like people,
        // or a very confident mesh, and never beside a pet). Human merges a per-call config into its
        // own, so both switches are set on every call.
        const res = await human.detect(input as never, objectsAndFaces);
        const W = img.width;
        const H = img.height;
        const found = onnxObjects ? await onnxObjects.detect(input) : res.object;
        const objects: DetectedObject[] = found.map((o) => ({
          label: o.label,
          score: o.score,
          box: { x: o.box[0] / W, y: o.box[1] / H, w: o.box[2] / W, h: o.box[3] / H },
        }));
        const person = objects.some(
          (o) =>
            o.label === 'person' && o.score >= THRESHOLDS.objectScore && o.box.w * o.box.h >= THRESHOLDS.minPersonArea,
        );
        // Boxes of a turned frame are mapped back by swapping axes; only their size is used then.
        const toFaces = (found: typeof res.face, turned: 0 | 90 | 270, w = W, h = H): DetectedFace[] =>
          found.map((f) => {
            const b = { x: f.box[0] / w, y: f.box[1] / h, w: f.box[2] / w, h: f.box[3] / h };
            return {
              score: f.faceScore ?? f.score,
              boxScore: f.boxScore ?? f.score,
              hasMesh: Array.isArray(f.mesh) && f.mesh.length > 100,
              box: turned ? { x: b.y, y: b.x, w: b.h, h: b.w } : b,
              turned,
            };
          });
        let faces = toFaces(res.face, 0);
        // Photos from cameras that wrote no orientation tag lie on their side, and BlazeFace only
        // finds upright faces: with no person detected upright, try the photo turned both ways. Such a
        // camera stores its sensor's landscape frame, so a portrait-shaped photo is already upright.
        const good = (fs: DetectedFace[]) => fs.some((f) => f.hasMesh && f.score >= THRESHOLDS.faceScore);
        if (options.turnedFaces !== false && !person && !good(faces) && W > H) {
          for (const turned of [90, 270] as const) {
            // Turned and scaled by sharp (not tensor ops): BlazeFace is sensitive to resampling, and
            // a fresh resize of the turned frame to the detector size finds faces the transposed tensor missed.
            const { data, info } = await sharp(img.data, { raw: { width: W, height: H, channels: 3 } })
              .rotate(turned)
              .resize(FACE_SIDE, FACE_SIDE, { fit: 'inside' })
              .raw()
              .toBuffer({ resolveWithObject: true });
            const t = toInput({
              data: new Uint8Array(data.buffer, data.byteOffset, data.length),
              width: info.width,
              height: info.height,
            });
            try {
              const turnedFaces = toFaces(
                (await human.detect(t as never, facesOnly)).face,
                turned,
                info.width,
                info.height,
              );
              if (good(turnedFaces)) faces = turnedFaces;
            } finally {
              t.dispose();
            }
            if (faces[0]?.turned) break;
          }
        }
        return { objects, faces };
      } finally {
        input.dispose();
      }
    },
  };
}
