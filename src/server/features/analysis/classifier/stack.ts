/**
 * The second stage of the category decision: the embedding probe's answer and the detectors'
 * evidence, combined by a small learned softmax (trained on the tuning part, see
 * scripts/build-reference-embeddings.ts), then an abstain threshold. Pure and unit-testable.
 */
import { PHOTO_CATEGORIES, type CategoryResult, type PhotoCategory } from '@domain/photo-categories';
import type { Classification } from './nearest-centroid';
import { THRESHOLDS, type DetectedFace, type DetectedObject } from './detections';
import { subjectCategory } from './coco-labels';
import { predictProbe, type ProbeModel } from './probe';

/** The COCO subject group of a label, if it is one the categories are about. */
export const subjectOf = subjectCategory;

const area = (b: { w: number; h: number }): number => Math.max(0, b.w) * Math.max(0, b.h);

export const DETECTION_FEATURES = [
  'personArea',
  'faceArea',
  'animalScore',
  'animalArea',
  'vehicleScore',
  'vehicleArea',
  'foodScore',
  'foodArea',
] as const;

/**
 * What the detectors saw, as numbers: the largest person box and human face (shares of the frame,
 * square-rooted so a small face is not ignored), and per subject group the best score and the
 * largest box among detections of that group (score >= 0.3, box >= 2 % of the frame).
 */
export function detectionFeatures(objects: readonly DetectedObject[], faces: readonly DetectedFace[]): number[] {
  let personArea = 0;
  for (const o of objects)
    if (o.label === 'person' && o.score >= THRESHOLDS.objectScore) personArea = Math.max(personArea, area(o.box));
  let faceArea = 0;
  for (const f of faces) if (f.hasMesh && f.score >= THRESHOLDS.faceScore) faceArea = Math.max(faceArea, area(f.box));
  const best = { animals: [0, 0], vehicles_transport: [0, 0], food_drink: [0, 0] };
  for (const o of objects) {
    const s = subjectOf(o.label);
    const a = area(o.box);
    if (!s || o.score < THRESHOLDS.agreeingObjectScore || a < THRESHOLDS.minObjectArea) continue;
    best[s][0] = Math.max(best[s][0], o.score);
    best[s][1] = Math.max(best[s][1], Math.sqrt(a));
  }
  return [Math.sqrt(personArea), Math.sqrt(faceArea), ...best.animals, ...best.vehicles_transport, ...best.food_drink];
}

/** Stage-2 inputs: log-probabilities of the embedding probe, then the detection features. */
export function stackInputs(embeddingProbs: readonly number[], detection: readonly number[]): number[] {
  return [...embeddingProbs.map((p) => Math.log(Math.max(p, 1e-6))), ...detection];
}

export interface CategoryModel {
  embedding: ProbeModel;
  /** Absent: the embedding probe's probabilities are used alone. */
  stack?: ProbeModel;
  /** Below this probability of the best category the photo stays uncategorized. */
  minConfidence: number;
}

export interface CategoryDecision extends Classification {
  probabilities: Record<PhotoCategory, number>;
}

export function decideFromProbabilities(probs: readonly number[], minConfidence: number): CategoryDecision {
  const order = PHOTO_CATEGORIES.map((c, i) => ({ c, p: probs[i] })).sort((a, b) => b.p - a.p);
  const [first, second] = order;
  const category: CategoryResult = first.p >= minConfidence ? first.c : 'uncategorized';
  return {
    category,
    nearest: first.c,
    runnerUp: second.c,
    similarity: first.p,
    margin: first.p - second.p,
    probabilities: Object.fromEntries(PHOTO_CATEGORIES.map((c, i) => [c, probs[i]])) as Record<PhotoCategory, number>,
  };
}

export function decideCategory(
  model: CategoryModel,
  embedding: ArrayLike<number>,
  objects: readonly DetectedObject[],
  faces: readonly DetectedFace[],
): CategoryDecision {
  const p1 = predictProbe(model.embedding, embedding);
  const probs = model.stack ? predictProbe(model.stack, stackInputs(p1, detectionFeatures(objects, faces))) : p1;
  return decideFromProbabilities(probs, model.minConfidence);
}
