import path from 'node:path';
import { createRequire } from 'node:module';
import type { Config, Human } from '@vladmandic/human';
import { tf, packageDir } from './runtime';
import { localModelBase, registerLocalModelRouter } from './local-io';
import type { RgbImage } from './embedder';
import { THRESHOLDS, type DetectedObject, type DetectedFace } from '../../../../domain/photo-analysis';

export interface Detections {
  objects: DetectedObject[];
  faces: DetectedFace[];
}

export interface Detector {
  detect(img: RgbImage): Promise<Detections>;
}

/**
 * COCO objects (CenterNet) and faces (BlazeFace + FaceMesh) from @vladmandic/human.
 * Everything else Human can do is switched off: each extra model costs load time and
 * per-image latency, and we only need counts and labels.
 */
export async function loadDetector(modelsDir?: string, nodeModulesDir?: string): Promise<Detector> {
  registerLocalModelRouter();
  const dir = modelsDir ?? path.join(packageDir('@vladmandic/human', nodeModulesDir), 'models');
  const wasmDir = path.join(packageDir('@tensorflow/tfjs-backend-wasm', nodeModulesDir), 'dist');
  const config: Partial<Config> = {
    backend: 'wasm',
    wasmPath: wasmDir + path.sep,
    wasmPlatformFetch: false,
    modelBasePath: localModelBase(dir),
    cacheModels: false,
    debug: process.env.EYEVU_VISION_DEBUG === '1',
    warmup: 'none',
    async: false,
    filter: { enabled: false },
    face: {
      enabled: true,
      detector: {
        enabled: true,
        modelPath: 'blazeface.json',
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
    object: { enabled: true, modelPath: 'centernet.json', minConfidence: 0.3, maxDetected: 20, iouThreshold: 0.4 },
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
  const objectsOnly = { face: { enabled: false }, object: { enabled: true } } as Partial<Config>;
  const facesOnly = { face: { enabled: true }, object: { enabled: false } } as Partial<Config>;
  return {
    async detect(img) {
      const input = tf.tensor3d(img.data, [img.height, img.width, 3], 'int32').toFloat().expandDims(0) as tf.Tensor4D;
      try {
        // Human's typings reference its own bundled tfjs Tensor type; the runtime object is the shared CJS tfjs.
        // Objects first; faces only count inside a person box (see analyzePhoto), so the face
        // models (BlazeFace + FaceMesh) run only when a person large enough to count was found.
        // Human merges a per-call config into its own, so both switches are set on every call.
        const res = await human.detect(input as never, objectsOnly);
        const W = img.width;
        const H = img.height;
        const objects: DetectedObject[] = res.object.map((o) => ({
          label: o.label,
          score: o.score,
          box: { x: o.box[0] / W, y: o.box[1] / H, w: o.box[2] / W, h: o.box[3] / H },
        }));
        const person = objects.some(
          (o) =>
            o.label === 'person' && o.score >= THRESHOLDS.objectScore && o.box.w * o.box.h >= THRESHOLDS.minPersonArea,
        );
        if (!person) return { objects, faces: [] };
        const withFaces = await human.detect(input as never, facesOnly);
        const faces: DetectedFace[] = withFaces.face.map((f) => ({
          score: f.faceScore ?? f.score,
          boxScore: f.boxScore ?? f.score,
          hasMesh: Array.isArray(f.mesh) && f.mesh.length > 100,
          box: { x: f.box[0] / W, y: f.box[1] / H, w: f.box[2] / W, h: f.box[3] / H },
        }));
        return { objects, faces };
      } finally {
        input.dispose();
      }
    },
  };
}
