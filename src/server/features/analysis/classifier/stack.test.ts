import type { DetectedFace, DetectedObject } from './detections';
import type { ProbeModel } from './probe';
import {
  DETECTION_FEATURES,
  decideCategory,
  decideFromProbabilities,
  detectionFeatures,
  stackInputs,
  subjectOf,
} from './stack';

const obj = (label: string, score: number, w: number, h: number): DetectedObject => ({
  label,
  score,
  box: { x: 0, y: 0, w, h },
});
const face = (w: number, hasMesh = true, score = 0.9): DetectedFace => ({
  score,
  boxScore: score,
  hasMesh,
  box: { x: 0.3, y: 0.3, w, h: w },
});

/** A probe whose class k fires on input k: identity weights scaled by `gain`. */
function identity(inputs: number, gain: number): ProbeModel {
  return {
    mean: new Array<number>(inputs).fill(0),
    scale: new Array<number>(inputs).fill(1),
    weights: Array.from({ length: 6 }, (_, k) => Array.from({ length: inputs }, (_, j) => (j === k ? gain : 0))),
    bias: new Array<number>(6).fill(0),
  };
}

describe('category decision from the probe and the detectors', () => {
  it('maps COCO labels to subject groups', () => {
    expect(subjectOf('dog')).toBe('animals');
    expect(subjectOf('airplane')).toBe('vehicles_transport');
    expect(subjectOf('sandwich')).toBe('food_drink');
    expect(subjectOf('person')).toBeUndefined();
  });

  it('summarises detections: biggest person and face, best score and box per subject group', () => {
    const f = detectionFeatures(
      [
        obj('person', 0.9, 0.5, 0.5),
        obj('person', 0.4, 0.9, 0.9), // too unsure to count
        obj('dog', 0.6, 0.2, 0.2),
        obj('cat', 0.35, 0.4, 0.4),
        obj('car', 0.9, 0.1, 0.1), // 1 % of the frame: too small
        obj('pizza', 0.2, 0.5, 0.5), // below the weak-detection score
      ],
      [face(0.1), face(0.3, false)],
    );
    expect(f).toHaveLength(DETECTION_FEATURES.length);
    expect(f[0]).toBeCloseTo(0.5); // sqrt(0.25)
    expect(f[1]).toBeCloseTo(0.1); // the mesh-less face does not count
    expect(f[2]).toBeCloseTo(0.6);
    expect(f[3]).toBeCloseTo(0.4);
    expect(f.slice(4)).toEqual([0, 0, 0, 0]);
  });

  it('abstains below the confidence threshold and keeps the nearest and runner-up', () => {
    const sure = decideFromProbabilities([0.05, 0.8, 0.05, 0.04, 0.03, 0.03], 0.5);
    expect(sure.category).toBe('animals');
    expect(sure.margin).toBeCloseTo(0.75);
    const unsure = decideFromProbabilities([0.3, 0.35, 0.1, 0.1, 0.1, 0.05], 0.5);
    expect(unsure.category).toBe('uncategorized');
    expect(unsure.nearest).toBe('animals');
    expect(unsure.runnerUp).toBe('people');
    expect(unsure.probabilities.people).toBeCloseTo(0.3);
  });

  it('lets the stack overrule the embedding when the detectors disagree', () => {
    const embedding = [0, 3, 0, 0, 0, 0]; // the probe says animals
    const model = { embedding: identity(6, 1), minConfidence: 0.3 };
    expect(decideCategory(model, embedding, [], []).category).toBe('animals');
    // Stack: log-probabilities (6) then detections (8); a big detected face votes strongly for people.
    const stack = identity(6 + DETECTION_FEATURES.length, 1);
    stack.weights[0][6 + 1] = 40;
    const withFace = decideCategory({ ...model, stack }, embedding, [], [face(0.3)]);
    expect(withFace.category).toBe('people');
    expect(stackInputs([1, 0.5], [0.2])).toEqual([0, Math.log(0.5), 0.2]);
  });
});
