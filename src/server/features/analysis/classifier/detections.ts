/** What the detectors report, normalised to the frame, and the thresholds that decide what counts. */

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
