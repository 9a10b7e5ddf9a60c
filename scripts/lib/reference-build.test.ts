import { decideFromProbabilities } from '../../src/server/features/analysis/index';
import type { LabelledEntry } from './cross-validation';
import { chooseBuildThresholds } from './reference-build';

/** Probabilities in PHOTO_CATEGORIES order with `lead` at `p` and a small non-people runner-up. */
function probsOf(lead: number, p: number): number[] {
  const v = [0, 0, 0, 0, 0, 0];
  v[lead] = p;
  v[lead === 1 ? 2 : 1] = 0.05;
  return v;
}

const entry = (i: number, category: LabelledEntry['category']): LabelledEntry => ({
  file: `photo-${i}.jpg`,
  category,
  set: 'tune',
  detections: { objects: [], faces: [] },
});

describe('the BUILD step shared by the candidate scripts', () => {
  // 20 animals: 17 the probe gets right at 0.9, two it gets wrong (food at 0.4 and 0.45), and one
  // it calls food at 0.6 that the detectors set right.
  const tune = Array.from({ length: 20 }, (_, i) => entry(i, 'animals'));
  const probs = [
    ...Array.from({ length: 17 }, () => probsOf(1, 0.9)),
    probsOf(2, 0.4),
    probsOf(2, 0.45),
    probsOf(2, 0.6),
  ];
  const answer = (i: number, t: number) => (i === 19 ? 'animals' : decideFromProbabilities(probs[i]!, t).category);

  it('abstains below the threshold with the best right - 2 x wrong, within the abstain limit', () => {
    const chosen = chooseBuildThresholds(probs, tune, answer);
    // 0.45 leaves one photo (5 %) uncategorized and one wrong; 0.6 would leave two (10 %, over 8 %).
    expect(chosen.minConfidence).toBe(0.45);
    expect(chosen.outcome).toEqual({ right: 18, given: 19, wrong: 1 });
  });

  it('skips the detectors only above the confidence where skipping loses no right answer', () => {
    // Skipping at 0.5 or 0.55 would take the probe's 'food' for photo 19, which the detectors set right.
    expect(chooseBuildThresholds(probs, tune, answer).detectorSkipConfidence).toBe(0.65);
    // With nothing for the detectors to add, the lowest skip is taken.
    const probeOnly = (i: number, t: number) => decideFromProbabilities(probs[i]!, t).category;
    expect(chooseBuildThresholds(probs, tune, probeOnly).detectorSkipConfidence).toBe(0.5);
  });
});
