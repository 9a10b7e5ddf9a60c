/**
 * From model outputs to meaning. Pure: no I/O, no tfjs — the vision engine feeds it
 * embeddings, detections and pixel statistics, and everything here is unit-testable
 * with synthetic inputs.
 */

export const PHOTO_CATEGORIES = [
  'people',
  'animals',
  'food_drink',
  'nature_landscape',
  'vehicles_transport',
  'city_architecture',
] as const;
export type PhotoCategory = (typeof PHOTO_CATEGORIES)[number];
export type CategoryResult = PhotoCategory | 'uncategorized';

export function isPhotoCategory(v: unknown): v is PhotoCategory {
  return typeof v === 'string' && (PHOTO_CATEGORIES as readonly string[]).includes(v);
}

// ---------------------------------------------------------------- vectors

export type Vector = ArrayLike<number>;

export function dot(a: Vector, b: Vector): number {
  if (a.length !== b.length) throw new Error(`dimension mismatch ${a.length} vs ${b.length}`);
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

export function norm(a: Vector): number {
  return Math.sqrt(dot(a, a));
}

export function cosineSimilarity(a: Vector, b: Vector): number {
  const d = norm(a) * norm(b);
  return d === 0 ? 0 : dot(a, b) / d;
}

export function normalize(a: Vector): Float32Array {
  const n = norm(a);
  const out = new Float32Array(a.length);
  if (n === 0) return out;
  for (let i = 0; i < a.length; i++) out[i] = a[i] / n;
  return out;
}

/** Mean of unit vectors, re-normalised, so every reference photo weighs the same. */
export function centroidOf(vectors: readonly Vector[]): Float32Array {
  if (vectors.length === 0) throw new Error('centroid of empty set');
  const sum = new Float32Array(vectors[0].length);
  for (const v of vectors) {
    const u = normalize(v);
    for (let i = 0; i < u.length; i++) sum[i] += u[i];
  }
  return normalize(sum);
}

// ---------------------------------------------------------------- classification

export interface Centroid {
  category: PhotoCategory;
  vector: Vector;
}

export interface Classification {
  category: CategoryResult;
  /** Nearest category even when it was not confident enough to be used. */
  nearest: PhotoCategory;
  /** Second-nearest category. */
  runnerUp: PhotoCategory;
  similarity: number;
  /** Cosine gap between the nearest and the runner-up centroid. */
  margin: number;
}

export function classifyEmbedding(
  embedding: Vector,
  centroids: readonly Centroid[],
  minMargin: number,
): Classification {
  if (centroids.length < 2) throw new Error('need at least two centroids');
  const scored = centroids
    .map((c) => ({ category: c.category, sim: cosineSimilarity(embedding, c.vector) }))
    .sort((x, y) => y.sim - x.sim);
  const [best, second] = scored;
  const margin = best.sim - second.sim;
  return {
    category: margin >= minMargin ? best.category : 'uncategorized',
    nearest: best.category,
    runnerUp: second.category,
    similarity: best.sim,
    margin,
  };
}

export interface LabelledEmbedding {
  category: PhotoCategory;
  embedding: Vector;
}

export interface LeaveOneOutResult {
  /** Accuracy of the plain nearest centroid (no margin), each photo held out of its own centroid. */
  accuracy: number;
  margin: number;
  /** At the chosen margin: share of photos that get a category, and how many of those are right. */
  coverage: number;
  acceptedAccuracy: number;
  confusion: Record<PhotoCategory, Record<PhotoCategory, number>>;
}

/**
 * Picks the margin threshold from held-out predictions instead of guessing: each photo
 * is classified against centroids built without it, and the threshold maximises
 * (correct − wrong) among accepted photos — a wrong category costs as much as a right
 * one gains, and `uncategorized` costs nothing.
 */
export function leaveOneOut(samples: readonly LabelledEmbedding[]): LeaveOneOutResult {
  const units = samples.map((s) => ({ category: s.category, u: normalize(s.embedding) }));
  const sums = new Map<PhotoCategory, { sum: Float32Array; n: number }>();
  for (const s of units) {
    const e = sums.get(s.category) ?? { sum: new Float32Array(s.u.length), n: 0 };
    for (let i = 0; i < s.u.length; i++) e.sum[i] += s.u[i];
    e.n++;
    sums.set(s.category, e);
  }
  const confusion = emptyConfusion();
  const preds: { correct: boolean; margin: number }[] = [];
  for (const s of units) {
    const centroids: Centroid[] = [];
    for (const [category, { sum, n }] of sums) {
      const v = new Float32Array(sum);
      if (category === s.category) {
        if (n < 2) continue;
        for (let i = 0; i < v.length; i++) v[i] -= s.u[i];
      }
      centroids.push({ category, vector: v });
    }
    const c = classifyEmbedding(s.u, centroids, 0);
    confusion[s.category][c.nearest]++;
    preds.push({ correct: c.nearest === s.category, margin: c.margin });
  }
  const candidates = [0, ...preds.map((p) => p.margin)].sort((a, b) => a - b);
  let bestT = 0;
  let bestUtility = -Infinity;
  for (const t of candidates) {
    let u = 0;
    for (const p of preds) if (p.margin >= t) u += p.correct ? 1 : -1;
    if (u > bestUtility) {
      bestUtility = u;
      bestT = t;
    }
  }
  const accepted = preds.filter((p) => p.margin >= bestT);
  const n = Math.max(preds.length, 1);
  return {
    accuracy: preds.filter((p) => p.correct).length / n,
    margin: bestT,
    coverage: accepted.length / n,
    acceptedAccuracy: accepted.length ? accepted.filter((p) => p.correct).length / accepted.length : 0,
    confusion,
  };
}

export function emptyConfusion(): Record<PhotoCategory, Record<PhotoCategory, number>> {
  const row = (): Record<PhotoCategory, number> =>
    Object.fromEntries(PHOTO_CATEGORIES.map((c) => [c, 0])) as Record<PhotoCategory, number>;
  return Object.fromEntries(PHOTO_CATEGORIES.map((c) => [c, row()])) as Record<
    PhotoCategory,
    Record<PhotoCategory, number>
  >;
}

// ---------------------------------------------------------------- pixels

export interface ColourSummary {
  /** Mean luma 0..1. */
  brightness: number;
  /** Colour names covering a meaningful share of the image, most common first. */
  dominant: string[];
  /** Share of the top third that looks like sky (blue, or bright low-saturation overcast). */
  skyShare: number;
}

/** Coarse names a person would use when searching; hue bands are deliberately wide. */
export function colourName(r: number, g: number, b: number): string {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const l = (max + min) / 2 / 255;
  const s = max === min ? 0 : (max - min) / (255 - Math.abs(max + min - 255));
  if (l < 0.16) return 'black';
  if (s < 0.18 || max - min < 24) return l > 0.82 ? 'white' : 'gray';
  let h: number;
  if (max === r) h = ((g - b) / (max - min)) % 6;
  else if (max === g) h = (b - r) / (max - min) + 2;
  else h = (r - g) / (max - min) + 4;
  h = (h * 60 + 360) % 360;
  if (h < 15 || h >= 340) return l > 0.7 ? 'pink' : 'red';
  if (h < 40) return l < 0.45 ? 'brown' : 'orange';
  if (h < 68) return l < 0.35 ? 'brown' : 'yellow';
  if (h < 165) return 'green';
  if (h < 255) return 'blue';
  if (h < 290) return 'purple';
  return 'pink';
}

/** `rgb` is packed RGB (3 bytes per pixel), typically a 32x32 thumbnail. */
export function summarizeColours(rgb: ArrayLike<number>, width: number, height: number): ColourSummary {
  const counts = new Map<string, number>();
  let luma = 0;
  let sky = 0;
  let topPixels = 0;
  const px = width * height;
  for (let i = 0; i < px; i++) {
    const r = rgb[i * 3];
    const g = rgb[i * 3 + 1];
    const b = rgb[i * 3 + 2];
    luma += (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
    const name = colourName(r, g, b);
    counts.set(name, (counts.get(name) ?? 0) + 1);
    if (Math.floor(i / width) < height / 3) {
      topPixels++;
      const blueSky = b > 120 && b >= r && b >= g - 10;
      const overcast = name === 'white' || (name === 'gray' && r + g + b > 450);
      if (blueSky || overcast) sky++;
    }
  }
  const dominant = [...counts.entries()]
    .filter(([, n]) => n / px >= 0.15)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 2)
    .map(([name]) => name);
  return { brightness: px ? luma / px : 0, dominant, skyShare: topPixels ? sky / topPixels : 0 };
}

// ---------------------------------------------------------------- detections

/** Boxes are normalised to 0..1 of the frame. */
export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}
export interface DetectedObject {
  label: string;
  score: number;
  box: Box;
}
export interface DetectedFace {
  /** Face score after the mesh model re-checked the crop. */
  score: number;
  boxScore: number;
  /** The mesh model produced landmarks, i.e. this is a human face, not a cat's. */
  hasMesh: boolean;
  box: Box;
  /** Found in the frame turned by this many degrees (a photo lying on its side); 0 or absent: upright. */
  turned?: 0 | 90 | 270;
}

export const THRESHOLDS = {
  objectScore: 0.5,
  /** Smaller boxes were mostly wrong on real photos (rocks as sheep, distant boats as birds). */
  minObjectArea: 0.02,
  /** Person box share of the frame that makes the photo "about people". */
  personAreaForPeople: 0.12,
  /** A person counted at all (for group/description) needs at least this share. */
  minPersonArea: 0.01,
  faceScore: 0.5,
  /** A mesh this sure is a face even with no person box (dark or sideways photos); pets excepted. */
  sureFaceScore: 0.9,
  minFaceArea: 0.002,
  faceAreaForPeople: 0.015,
  groupSize: 3,
  subjectAreaForCategory: 0.15,
  /** A detection this weak only counts when it agrees with the embedding's nearest category. */
  agreeingObjectScore: 0.3,
  nightBrightness: 0.2,
  outdoorSky: 0.35,
} as const;

const area = (b: Box): number => Math.max(0, b.w) * Math.max(0, b.h);

const INDOOR_OBJECTS = new Set([
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
const OUTDOOR_OBJECTS = new Set([
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
const ANIMALS = new Set(['bird', 'cat', 'dog', 'horse', 'sheep', 'cow', 'elephant', 'bear', 'zebra', 'giraffe']);
/** Their faces can pass BlazeFace and even the mesh check. */
const PETS = new Set(['cat', 'dog']);
const VEHICLES = new Set(['bicycle', 'car', 'motorcycle', 'airplane', 'bus', 'train', 'truck', 'boat']);
const FOOD = new Set([
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

const SUBJECT_CATEGORIES = new Set<CategoryResult>(['animals', 'vehicles_transport', 'food_drink']);

function subjectCategory(label: string): PhotoCategory | undefined {
  if (ANIMALS.has(label)) return 'animals';
  if (VEHICLES.has(label)) return 'vehicles_transport';
  if (FOOD.has(label)) return 'food_drink';
  return undefined;
}

/** The category of the largest detected animal, vehicle or food subject covering at least `minArea`. */
function categoryFromObjects(objects: readonly DetectedObject[], minArea: number): PhotoCategory | undefined {
  let best: { category: PhotoCategory; a: number } | undefined;
  for (const o of objects) {
    const category = subjectCategory(o.label);
    const a = area(o.box);
    if (category && a >= minArea && (!best || a > best.a)) best = { category, a };
  }
  return best?.category;
}

function overlaps(a: Box, b: Box): boolean {
  const cx = a.x + a.w / 2;
  const cy = a.y + a.h / 2;
  return cx >= b.x && cx <= b.x + b.w && cy >= b.y && cy <= b.y + b.h;
}

// ---------------------------------------------------------------- analysis

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

const NUMBER_WORDS = ['No', 'One', 'Two', 'Three', 'Four', 'Five', 'Six', 'Seven', 'Eight', 'Nine', 'Ten'];

function article(word: string): string {
  return /^[aeiou]/i.test(word) ? `an ${word}` : `a ${word}`;
}

function countPhrase(n: number, singular: string, plural: string): string {
  if (n === 1) return article(singular);
  return `${(NUMBER_WORDS[n] ?? String(n)).toLowerCase()} ${plural}`;
}

const CATEGORY_SUBJECT: Record<CategoryResult, string> = {
  people: 'People',
  animals: 'An animal',
  food_drink: 'Food and drink',
  nature_landscape: 'A landscape',
  vehicles_transport: 'A vehicle',
  city_architecture: 'A building',
  uncategorized: 'A photo',
};

function pluralise(label: string): string {
  if (label === 'person') return 'people';
  if (/(s|sh|ch)$/.test(label)) return `${label}es`;
  if (label === 'sheep') return label;
  return `${label}s`;
}

/** One line built from what was found, e.g. "Two people outdoors with a dog". */
export function describe(
  category: CategoryResult,
  personCount: number,
  objects: readonly DetectedObject[],
  setting: 'indoor' | 'outdoor' | undefined,
  night: boolean,
): string {
  const counts = new Map<string, number>();
  for (const o of objects) if (o.label !== 'person') counts.set(o.label, (counts.get(o.label) ?? 0) + 1);
  const others = [...counts.entries()].sort((a, b) => b[1] - a[1]);

  let subject: string;
  let rest = others;
  if (personCount > 0) {
    subject = personCount === 1 ? 'A person' : `${capitalise(countPhrase(personCount, 'person', 'people'))}`;
  } else if (category === 'animals' && others.some(([l]) => ANIMALS.has(l))) {
    const [label, n] = others.find(([l]) => ANIMALS.has(l)) ?? ['animal', 1];
    subject = capitalise(countPhrase(n, label, pluralise(label)));
    rest = others.filter(([l]) => l !== label);
  } else {
    subject = CATEGORY_SUBJECT[category];
  }
  let line = subject;
  if (setting === 'outdoor') line += ' outdoors';
  else if (setting === 'indoor') line += ' indoors';
  if (night) line += ' at night';
  const withs = rest.slice(0, 2).map(([l, n]) => countPhrase(n, l, pluralise(l)));
  if (withs.length) line += ` with ${withs.join(' and ')}`;
  return line;
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
