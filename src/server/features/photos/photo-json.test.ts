import { photo, photoList, photoPage, type Photo } from '@contract/photos';
import { photoJson, photoListJson, photoPageJson } from './photo-json';

const base: Photo = {
  id: '0b6f3a2e-8a0c-4c1e-9a55-1f0d1c7f9e01',
  name: 'Beach',
  url: '/api/photos/x/original?v=abc',
  thumbnailUrl: '/api/photos/x/thumbnail?v=abc',
  previewUrl: '/api/photos/x/preview?v=abc',
  displayUrl: '/api/photos/x/display?v=abc',
  uploadedAt: '2024-01-01T00:00:00.123Z',
  takenAt: null,
  size: 1234,
  width: 640,
  height: 480,
  thumbhash: null,
  analyzed: false,
  category: null,
  tags: [],
  description: null,
  albumId: null,
  isDemo: false,
  favorite: false,
  appliedFilter: null,
};

// Rows the hand-written JSON must get exactly right: nulls and non-nulls in every nullable
// field, quotes, backslashes, control characters, unicode (astral, combining, a lone surrogate),
// the largest integers, optional fields absent.
const awkward: Photo[] = [
  base,
  {
    ...base,
    id: 'ff',
    name: 'He said "hi" \\ back\\slash\n\t\u0000\u001f \u2028\u2029 </script>',
    takenAt: '1970-01-01T00:00:00.000Z',
    size: Number.MAX_SAFE_INTEGER,
    width: 0,
    height: 2147483647,
    thumbhash: 'YJqGPQw7sFlslqhFafSE+Q6oJ1h2iHB2Rw==',
    analyzed: true,
    category: 'people',
    tags: ['café', '🐶 dog', 'e\u0301', '"quoted"', '\ud800'],
    description: 'Ünïcødé — 日本語 — 😀',
    albumId: 'a1',
    isDemo: true,
    favorite: true,
    appliedFilter: { filterName: 'Sépia "warm"', intensity: -100 },
  },
  { ...base, displayUrl: undefined, appliedFilter: undefined, category: 'uncategorized', tags: ['only'] },
];

describe('photo JSON written by hand', () => {
  it('is the text of the zod-validated photo, page and list for awkward rows', () => {
    for (const p of awkward) expect(photoJson(p)).toBe(JSON.stringify(photo.parse(p)));
    for (const nextCursor of [null, 'WyIyMDI0IiwiYSJd']) {
      const page = { items: awkward, nextCursor, total: 100_000 };
      expect(photoPageJson(page)).toBe(JSON.stringify(photoPage.parse(page)));
    }
    expect(photoPageJson({ items: [], nextCursor: null, total: 0 })).toBe(
      JSON.stringify(photoPage.parse({ items: [], nextCursor: null, total: 0 })),
    );
    expect(photoListJson(awkward)).toBe(JSON.stringify(photoList.parse(awkward)));
    expect(photoListJson([])).toBe('[]');
    expect(JSON.parse(photoListJson(awkward))).toEqual(photoList.parse(awkward));
  });

  it('refuses a count that is not an integer, as the schema does', () => {
    for (const size of [1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => photo.parse({ ...base, size })).toThrow();
      expect(() => photoJson({ ...base, size })).toThrow(/size/);
    }
    expect(() => photoPageJson({ items: [], nextCursor: null, total: 0.5 })).toThrow(/total/);
  });
});
