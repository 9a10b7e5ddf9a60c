import { readFile } from 'node:fs/promises';
import { defaultReferencePath, parseReferenceEmbeddings } from './engine';

describe('the trained category model file', () => {
  it('records the blocks, the input side, the abstain threshold and when detectors are skipped', async () => {
    const ref = parseReferenceEmbeddings(JSON.parse(await readFile(defaultReferencePath(), 'utf8')));
    expect(ref.layers).toEqual(['mixed8', 'mixed9']);
    expect(ref.inputSize).toBe(224);
    expect(ref.detectorRules).toBe(true);
    expect(ref.minConfidence).toBeGreaterThan(0);
    expect(ref.minConfidence).toBeLessThan(ref.detectorSkipConfidence);
    expect(ref.detectorSkipConfidence).toBeLessThanOrEqual(1);
  });

  it('a file without a skip threshold never skips the detectors; a malformed one is refused', async () => {
    const json = JSON.parse(await readFile(defaultReferencePath(), 'utf8')) as Record<string, unknown>;
    delete json.detectorSkipConfidence;
    expect(parseReferenceEmbeddings(json).detectorSkipConfidence).toBeGreaterThan(1);
    expect(() => parseReferenceEmbeddings({ ...json, categories: ['people'] })).toThrow(/malformed/);
    // A candidate script's file with feature groups would otherwise be read as plain pooled means.
    expect(() => parseReferenceEmbeddings({ ...json, features: ['mixed9/max'] })).toThrow(/feature groups/);
  });
});
