/**
 * Public API of the analysis feature: the routes and queue for the app, the vision engine and the
 * labelled photos for benchmarks, and the classifier pieces the model-building scripts train.
 */
export { analysisRoutes, type AnalysisRoutesOptions } from './analysis.routes.js';
export { createAnalysisService, type AnalysisService } from './analysis.service.js';
export type { PhotoAnalyzer } from './analysis.worker.js';
export { createVisionEngine, decodeForModels, type VisionEngine, type VisionResult } from './vision/engine.js';
export { createVisionPool } from './vision/pool.js';
export { ensureTfWasm } from './vision/runtime.js';
export { EMBEDDING_INPUT, loadEmbedder, type RgbImage } from './vision/embedder.js';
export { loadDetector, type Detections } from './vision/detectors.js';
export {
  demoPhotos,
  figures,
  labelledPhotos,
  report,
  type LabelledPhoto,
  type Scored,
} from './vision/labelled-photos.js';
export { analyzePhoto, looksLikePeople } from './classifier/category-rules.js';
export { fnv1a, splitGroupKey, splitPart } from './classifier/split.js';
export { categoryIndex, predictProbe, trainProbe, type ProbeModel, type TrainingRow } from './classifier/probe.js';
export { decideFromProbabilities, detectionFeatures, stackInputs } from './classifier/stack.js';
