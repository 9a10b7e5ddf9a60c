/**
 * From model outputs to a photo's category, tags and description. Pure: no I/O, no tfjs, so every
 * rule is unit-testable with synthetic detections.
 */
import type { CategoryResult } from '@domain/photo-categories';
import type { Classification } from './nearest-centroid';
import type { ColourSummary } from './colours';
import { THRESHOLDS, type DetectedFace, type DetectedObject } from './detections';
import {
  INDOOR_OBJECTS,
  OUTDOOR_OBJECTS,
  PETS,
  SUBJECT_CATEGORIES,
  area,
  categoryFromObjects,
  overlaps,
  subjectCategory,
} from './coco-labels';
import { describe } from './description';

export interface AnalysisInput {
  classification: Classification;
  /**
   * The classification already weighed the detections (the learned category model): its category
   * is final and the rules below that combine embedding and detections are skipped.
   */
  categoryDecided?: boolean;
  objects: readonly DetectedObject[];
  faces: readonly DetectedFace[];
  colours: ColourSummary;
}

export interface PhotoAnalysis {
  category: CategoryResult;
  tags: string[];
  description: string;
  faceCount: number;
  personCount: number;
}

/** People is the nearest or second-nearest category: worth a closer look for faces. */
export function looksLikePeople(c: Classification): boolean {
  return c.nearest === 'people' || c.runnerUp === 'people';
}

export function analyzePhoto(input: AnalysisInput): PhotoAnalysis {
  const T = THRESHOLDS;
  const objects = input.objects.filter((o) => o.score >= T.objectScore && area(o.box) >= T.minObjectArea);
  const persons = input.objects.filter(
    (o) => o.label === 'person' && o.score >= T.objectScore && area(o.box) >= T.minPersonArea,
  );
  // Dog and cat faces can pass even the mesh check, so a face counts only inside a person box, or
  // with no pet detected when the scene looks like people (one of the two nearest centroids) or the
  // mesh is very sure (on the reference set, the only non-face with a mesh scored 0.76: an alpaca).
  const pet = objects.some((o) => PETS.has(o.label));
  const peopleScene = looksLikePeople(input.classification) && !pet;
  const faces = input.faces.filter(
    (f) =>
      f.hasMesh &&
      f.score >= T.faceScore &&
      area(f.box) >= T.minFaceArea &&
      ((!f.turned && persons.some((p) => overlaps(f.box, p.box))) ||
        peopleScene ||
        (!pet && f.score >= T.sureFaceScore)),
  );
  const faceCount = faces.length;
  const personCount = Math.max(persons.length, faceCount);

  const bigPerson = persons.some((p) => area(p.box) >= T.personAreaForPeople);
  const bigFace = faces.some((f) => area(f.box) >= T.faceAreaForPeople);
  const cls = input.classification;
  let category: CategoryResult = input.categoryDecided
    ? cls.category
    : bigPerson || bigFace
      ? 'people'
      : (categoryFromObjects(objects, T.subjectAreaForCategory) ?? cls.category);
  if (!input.categoryDecided && category === 'people' && persons.length === 0 && faceCount === 0) {
    // The embedding says people but nobody was detected: a detected animal, vehicle or food wins.
    category = categoryFromObjects(objects, T.minObjectArea) ?? category;
  }
  if (!input.categoryDecided && category === 'uncategorized') {
    // Too close to call for the embedding alone, but a weaker detection of a subject of the
    // nearest category agrees with it: two independent models together are enough.
    const agree = input.objects.some(
      (o) =>
        o.score >= T.agreeingObjectScore && area(o.box) >= T.minObjectArea && subjectCategory(o.label) === cls.nearest,
    );
    if (agree) category = cls.nearest;
  }

  // Once the photo is about an animal, a vehicle or food, a detection of another of those three
  // subjects is a detector mistake or a detail (a burger seen as a dog): it must not become a tag
  // or the description's subject, or the tags would contradict the category.
  const shown = objects.filter((o) => {
    const s = subjectCategory(o.label);
    return !s || !SUBJECT_CATEGORIES.has(category) || s === category;
  });

  const tags: string[] = [];
  const add = (t: string): void => {
    if (!tags.includes(t)) tags.push(t);
  };
  for (const o of [...shown].sort((a, b) => b.score - a.score)) add(o.label);
  if (faceCount === 1) add('portrait');
  if (personCount >= T.groupSize) add('group');
  for (const c of input.colours.dominant) add(c);

  const setting = inferSetting(category, shown, input.colours);
  if (setting) add(setting);
  const night = input.colours.brightness < T.nightBrightness;
  if (night) add('night');

  return {
    category,
    tags,
    description: describe(category, personCount, shown, setting, night),
    faceCount,
    personCount,
  };
}

function inferSetting(
  category: CategoryResult,
  objects: readonly DetectedObject[],
  c: ColourSummary,
): 'indoor' | 'outdoor' | undefined {
  const indoor = objects.filter((o) => INDOOR_OBJECTS.has(o.label)).length;
  const outdoor = objects.filter((o) => OUTDOOR_OBJECTS.has(o.label)).length;
  if (indoor > outdoor) return 'indoor';
  if (outdoor > indoor) return 'outdoor';
  if (c.skyShare >= THRESHOLDS.outdoorSky) return 'outdoor';
  if (category === 'nature_landscape' || category === 'city_architecture') return 'outdoor';
  return undefined;
}
