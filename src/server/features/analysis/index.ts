/**
 * Public API of the analysis feature: the routes and queue for the app, the vision engine and the
 * labelled photos for benchmarks, and the classifier pieces the model-building scripts train.
 */
export { analysisRoutes, type AnalysisRoutesOptions } from './analysis.routes';
export { createAnalysisService, type AnalysisService } from './analysis.service';
export type { PhotoAnalyzer } from './analysis.worker';
export { createVisionEngine, decodeForModels, type VisionEngine, type VisionResult } from './vision/engine';
export { createVisionPool } from './vision/pool';
export { VISION_BATCH } from './vision-analyzer';
export { ensureTfWasm } from './vision/runtime';
export { EMBEDDING_INPUT, loadEmbedder, type RgbImage } from './vision/embedder';
export { loadDetector, type Detections } from './vision/detectors';
export { demoPhotos, figures, labelledPhotos, report, type LabelledPhoto, type Scored } from './vision/labelled-photos';
export { analyzePhoto, looksLikePeople } from './classifier/category-rules';
export { fnv1a, splitGroupKey, splitPart } from './classifier/split';
export { categoryIndex, predictProbe, trainProbe, type ProbeModel, type TrainingRow } from './classifier/probe';
export { decideFromProbabilities, detectionFeatures, stackInputs } from './classifier/stack';
