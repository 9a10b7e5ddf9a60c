/** COCO labels grouped by what they say about a photo: its subject category and its setting. */
import type { CategoryResult, PhotoCategory } from '@domain/photo-categories';
import type { Box, DetectedObject } from './detections';

/** The categories a single detected object can decide. */
export type SubjectCategory = 'animals' | 'vehicles_transport' | 'food_drink';

export const area = (b: Box): number => Math.max(0, b.w) * Math.max(0, b.h);

export const INDOOR_OBJECTS = new Set([
  'couch',
  'bed',
  'tv',
  'laptop',
  'dining table',
  'chair',
  'refrigerator',
  'oven',
  'microwave',
  'sink',
  'toilet',
  'book',
  'keyboard',
  'mouse',
  'potted plant',
  'remote',
  'clock',
  'vase',
  'toaster',
]);
export const OUTDOOR_OBJECTS = new Set([
  'car',
  'bus',
  'truck',
  'train',
  'boat',
  'airplane',
  'traffic light',
  'stop sign',
  'fire hydrant',
  'bench',
  'horse',
  'sheep',
  'cow',
  'elephant',
  'giraffe',
  'zebra',
  'bear',
  'kite',
  'surfboard',
  'skis',
  'snowboard',
  'motorcycle',
  'bicycle',
  'parking meter',
]);
export const ANIMALS = new Set(['bird', 'cat', 'dog', 'horse', 'sheep', 'cow', 'elephant', 'bear', 'zebra', 'giraffe']);
/** Their faces can pass BlazeFace and even the mesh check. */
export const PETS = new Set(['cat', 'dog']);
export const VEHICLES = new Set(['bicycle', 'car', 'motorcycle', 'airplane', 'bus', 'train', 'truck', 'boat']);
export const FOOD = new Set([
  'banana',
  'apple',
  'sandwich',
  'orange',
  'broccoli',
  'carrot',
  'hot dog',
  'pizza',
  'donut',
  'cake',
  'wine glass',
  'cup',
  'bowl',
]);

export const SUBJECT_CATEGORIES = new Set<CategoryResult>(['animals', 'vehicles_transport', 'food_drink']);

export function subjectCategory(label: string): SubjectCategory | undefined {
  if (ANIMALS.has(label)) return 'animals';
  if (VEHICLES.has(label)) return 'vehicles_transport';
  if (FOOD.has(label)) return 'food_drink';
  return undefined;
}

/** The category of the largest detected animal, vehicle or food subject covering at least `minArea`. */
export function categoryFromObjects(objects: readonly DetectedObject[], minArea: number): PhotoCategory | undefined {
  let best: { category: PhotoCategory; a: number } | undefined;
  for (const o of objects) {
    const category = subjectCategory(o.label);
    const a = area(o.box);
    if (category && a >= minArea && (!best || a > best.a)) best = { category, a };
  }
  return best?.category;
}

export function overlaps(a: Box, b: Box): boolean {
  const cx = a.x + a.w / 2;
  const cy = a.y + a.h / 2;
  return cx >= b.x && cx <= b.x + b.w && cy >= b.y && cy <= b.y + b.h;
}
