export {
  createVisionEngine,
  decodeForModels,
  defaultReferencePath,
  parseReferenceEmbeddings,
  cosineSimilarity,
  normalize,
  centroidOf,
  type VisionEngine,
  type VisionEngineOptions,
  type VisionResult,
  type ReferenceEmbeddings,
} from './engine';
