import { analyzePhoto, type AnalysisInput } from './category-rules';
import { classifyEmbedding, leaveOneOut, type Classification } from './nearest-centroid';
import { centroidOf, cosineSimilarity } from './vectors';
import { colourName, summarizeColours } from './colours';
import { describe as describePhoto } from './description';
import type { DetectedFace, DetectedObject } from './detections';

const cls = (category: Classification['category'] = 'nature_landscape'): Classification => ({
  category,
  nearest: category === 'uncategorized' ? 'nature_landscape' : category,
  runnerUp: category === 'city_architecture' ? 'nature_landscape' : 'city_architecture',
  similarity: 0.9,
  margin: 0.1,
});
const obj = (label: string, w: number, h: number, score = 0.8): DetectedObject => ({
  label,
  score,
  box: { x: 0.1, y: 0.1, w, h },
});
const face = (hasMesh = true): DetectedFace => ({
  score: 0.9,
  boxScore: 0.9,
  hasMesh,
  box: { x: 0.2, y: 0.15, w: 0.1, h: 0.1 },
});
const input = (over: Partial<AnalysisInput> = {}): AnalysisInput => ({
  classification: cls(),
  objects: [],
  faces: [],
  colours: { brightness: 0.5, dominant: ['green'], skyShare: 0.6 },
  ...over,
});

describe('vectors and classification', () => {
  it('computes cosine similarity', () => {
    expect(cosineSimilarity([1, 0], [1, 0])).toBeCloseTo(1);
    expect(cosineSimilarity([1, 0], [0, 2])).toBeCloseTo(0);
    expect(cosineSimilarity([0, 0], [1, 1])).toBe(0);
  });

  it('picks the nearest centroid and falls back to uncategorized on a small margin', () => {
    const centroids = [
      { category: 'animals' as const, vector: [1, 0, 0] },
      { category: 'food_drink' as const, vector: [0, 1, 0] },
    ];
    expect(classifyEmbedding([0.9, 0.1, 0], centroids, 0.05).category).toBe('animals');
    const close = classifyEmbedding([0.5, 0.48, 0], centroids, 0.05);
    expect(close.category).toBe('uncategorized');
    expect(close.nearest).toBe('animals');
  });

  it('builds unit-length centroids', () => {
    const c = centroidOf([
      [2, 0],
      [0, 2],
    ]);
    expect(Math.hypot(c[0], c[1])).toBeCloseTo(1);
  });

  it('chooses a margin by leave-one-out on separable clusters', () => {
    const samples = [
      ...[0, 1, 2].map((i) => ({ category: 'animals' as const, embedding: [1, 0.1 * i, 0] })),
      ...[0, 1, 2].map((i) => ({ category: 'vehicles_transport' as const, embedding: [0, 1, 0.1 * i] })),
    ];
    const r = leaveOneOut(samples);
    expect(r.accuracy).toBe(1);
    expect(r.coverage).toBe(1);
    expect(r.confusion.animals.animals).toBe(3);
  });
});

describe('analyzePhoto', () => {
  it('overrides the category with people when a person fills the frame, and tags a portrait', () => {
    const r = analyzePhoto(input({ objects: [obj('person', 0.5, 0.8)], faces: [face()] }));
    expect(r.category).toBe('people');
    expect(r.faceCount).toBe(1);
    expect(r.tags).toContain('portrait');
    expect(r.description).toBe('A person outdoors');
  });

  it('ignores faces without a mesh or outside any person (cat and dog faces)', () => {
    const r = analyzePhoto(
      input({ classification: cls('animals'), objects: [obj('cat', 0.5, 0.5)], faces: [face(true), face(false)] }),
    );
    expect(r.faceCount).toBe(0);
    expect(r.category).toBe('animals');
    expect(r.description).toBe('A cat outdoors');
  });

  it('counts a face found in a turned frame when the scene looks like people, never in a pet photo', () => {
    const sideways: DetectedFace = { ...face(), box: { x: 0.2, y: 0.15, w: 0.15, h: 0.2 }, turned: 270 };
    const people = analyzePhoto(input({ classification: cls('people'), faces: [sideways] }));
    expect(people.faceCount).toBe(1);
    expect(people.tags).toContain('portrait');
    expect(people.category).toBe('people');
    // People only the runner-up (a dark, sideways photo): a mesh-checked face still counts.
    const runnerUp: Classification = { ...cls('city_architecture'), runnerUp: 'people' };
    expect(analyzePhoto(input({ classification: runnerUp, faces: [sideways] })).category).toBe('people');
    // People not among the two nearest and no person box: only a very sure mesh counts.
    expect(analyzePhoto(input({ faces: [{ ...sideways, score: 0.8 }] })).faceCount).toBe(0);
    expect(analyzePhoto(input({ faces: [{ ...sideways, score: 0.96 }] })).faceCount).toBe(1);
    // A dog in a scene the embedding calls people: its face is not a person's.
    const dog = analyzePhoto(
      input({ classification: cls('people'), objects: [obj('dog', 0.3, 0.3)], faces: [face(true)] }),
    );
    expect(dog.faceCount).toBe(0);
  });

  it('does not call a photo people when nobody was detected but a pet was', () => {
    const r = analyzePhoto(input({ classification: cls('people'), objects: [obj('dog', 0.2, 0.2)] }));
    expect(r.category).toBe('animals');
    // With a detected person the embedding's people stands.
    const withPerson = analyzePhoto(
      input({ classification: cls('people'), objects: [obj('dog', 0.2, 0.2), obj('person', 0.1, 0.3)] }),
    );
    expect(withPerson.category).toBe('people');
  });

  it('settles an uncertain embedding only when a weaker detection agrees with its nearest category', () => {
    const unsure: Classification = {
      category: 'uncategorized',
      nearest: 'food_drink',
      runnerUp: 'animals',
      similarity: 0.5,
      margin: 0,
    };
    expect(analyzePhoto(input({ classification: unsure, objects: [obj('cup', 0.4, 0.6, 0.45)] })).category).toBe(
      'food_drink',
    );
    // A weak detection of another category does not decide it.
    expect(analyzePhoto(input({ classification: unsure, objects: [obj('boat', 0.4, 0.6, 0.45)] })).category).toBe(
      'uncategorized',
    );
    // Nor does a detection weaker than the agreeing threshold.
    expect(analyzePhoto(input({ classification: unsure, objects: [obj('cup', 0.4, 0.6, 0.2)] })).category).toBe(
      'uncategorized',
    );
  });

  it('tags a group and writes a description with companions', () => {
    const objects = [obj('person', 0.1, 0.3), obj('person', 0.1, 0.3), obj('person', 0.1, 0.3), obj('dog', 0.1, 0.2)];
    const r = analyzePhoto(input({ objects }));
    expect(r.personCount).toBe(3);
    expect(r.tags).toContain('group');
    expect(r.description).toBe('Three people outdoors with a dog');
  });

  it('drops tiny and low-score boxes', () => {
    const r = analyzePhoto(input({ objects: [obj('sheep', 0.05, 0.05), obj('bird', 0.3, 0.3, 0.2)] }));
    expect(r.tags).not.toContain('sheep');
    expect(r.tags).not.toContain('bird');
  });

  it('uses a large vehicle or food subject as the category', () => {
    expect(
      analyzePhoto(input({ classification: cls('uncategorized'), objects: [obj('bus', 0.6, 0.5)] })).category,
    ).toBe('vehicles_transport');
    expect(analyzePhoto(input({ classification: cls('animals'), objects: [obj('pizza', 0.5, 0.5)] })).category).toBe(
      'food_drink',
    );
  });

  it('keeps a category the learned model already decided, detections notwithstanding', () => {
    const decided = (c: Classification['category'], objects: DetectedObject[]) =>
      analyzePhoto(input({ classification: cls(c), categoryDecided: true, objects })).category;
    expect(decided('nature_landscape', [obj('person', 0.6, 0.6)])).toBe('nature_landscape');
    expect(decided('uncategorized', [obj('cup', 0.4, 0.6, 0.45)])).toBe('uncategorized');
    expect(decided('food_drink', [obj('dog', 0.5, 0.5)])).toBe('food_drink');
  });

  it('keeps tags and description consistent with an animal, vehicle or food category', () => {
    // A burger the detector took for a dog: no "dog" tag, no dog in the description.
    const burger = analyzePhoto(
      input({
        classification: cls('food_drink'),
        categoryDecided: true,
        objects: [obj('dog', 0.5, 0.5, 0.6), obj('sandwich', 0.4, 0.4, 0.55)],
      }),
    );
    expect(burger.tags).toContain('sandwich');
    expect(burger.tags).not.toContain('dog');
    expect(burger.description).not.toMatch(/dog/);
    // Other categories keep every subject (a street with cars is still a city photo with cars).
    const street = analyzePhoto(
      input({ classification: cls('city_architecture'), categoryDecided: true, objects: [obj('car', 0.3, 0.2)] }),
    );
    expect(street.tags).toContain('car');
  });

  it('marks night and indoor scenes', () => {
    const r = analyzePhoto(
      input({
        classification: cls('uncategorized'),
        objects: [obj('couch', 0.5, 0.3)],
        colours: { brightness: 0.1, dominant: ['black'], skyShare: 0 },
      }),
    );
    expect(r.tags).toEqual(expect.arrayContaining(['couch', 'black', 'indoor', 'night']));
    expect(r.description).toBe('A photo indoors at night with a couch');
  });
});

describe('colours and description helpers', () => {
  it('names colours', () => {
    expect(colourName(250, 10, 10)).toBe('red');
    expect(colourName(20, 200, 30)).toBe('green');
    expect(colourName(30, 60, 220)).toBe('blue');
    expect(colourName(250, 250, 250)).toBe('white');
    expect(colourName(5, 5, 5)).toBe('black');
  });

  it('summarises a synthetic blue-sky-over-green image', () => {
    const w = 4;
    const h = 3;
    const px: number[] = [];
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) px.push(...(y === 0 ? [80, 140, 230] : [40, 160, 50]));
    const s = summarizeColours(px, w, h);
    expect(s.dominant).toEqual(['green', 'blue']);
    expect(s.skyShare).toBe(1);
  });

  it('describes landscapes without people', () => {
    expect(describePhoto('nature_landscape', 0, [], 'outdoor', false)).toBe('A landscape outdoors');
    expect(describePhoto('people', 2, [obj('dog', 0.2, 0.2)], 'outdoor', false)).toBe('Two people outdoors with a dog');
  });
});
