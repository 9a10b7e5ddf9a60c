import type { AnalysisOutcome } from './analysis.repository.js';
import type { PhotoAnalyzer } from './analysis.worker.js';
import { createVisionEngine, type VisionEngine } from './vision/index.js';

let engine: VisionEngine | undefined;

/**
 * The real analyzer: one vision engine per process, created on the first job (never at server
 * start or on a request), models loaded then and kept for the life of the process.
 */
export const visionAnalyzer: PhotoAnalyzer = async (image: Buffer): Promise<AnalysisOutcome> => {
  engine ??= createVisionEngine();
  const r = await engine.analyze(image);
  return { category: r.category, tags: r.tags, description: r.description, faceCount: r.faceCount };
};
