import {
  APPLY_MAX_SIZE,
  appliedDimensions,
  FILTERS,
  FILTER_IDS,
  FILTER_LIST,
  INTENSITY,
  isFilterId,
  isValidIntensity,
} from './filters';

describe('filter catalogue', () => {
  it('lists the six spec filters in editor order', () => {
    expect(FILTER_IDS).toEqual(['vintage', 'dramatic', 'soft_portrait', 'vibrant', 'black_white', 'sunset']);
    expect(FILTER_LIST.map((f) => f.id)).toEqual([...FILTER_IDS]);
  });

  it('uses the spec display names and descriptions', () => {
    expect(FILTERS.vintage).toEqual({ id: 'vintage', name: 'Vintage', description: 'warm nostalgic film effect' });
    expect(FILTERS.dramatic).toMatchObject({ name: 'Dramatic', description: 'high contrast' });
    expect(FILTERS.soft_portrait).toMatchObject({ name: 'Soft Portrait', description: 'gentle skin smoothing' });
    expect(FILTERS.vibrant).toMatchObject({ name: 'Vibrant', description: 'enhanced colours' });
    expect(FILTERS.black_white).toMatchObject({ name: 'Classic B&W', description: null });
    expect(FILTERS.sunset).toMatchObject({ name: 'Golden Hour', description: null });
    for (const id of FILTER_IDS) expect(FILTERS[id].id).toBe(id);
  });

  it('recognises filter ids', () => {
    expect(isFilterId('vintage')).toBe(true);
    expect(isFilterId('sepia')).toBe(false);
    expect(isFilterId('toString')).toBe(false);
    expect(isFilterId(undefined)).toBe(false);
  });
});

describe('intensity', () => {
  it('matches the slider: 50..150 step 10, default 100', () => {
    expect(INTENSITY).toEqual({ min: 50, max: 150, step: 10, default: 100 });
    expect(isValidIntensity(INTENSITY.default)).toBe(true);
  });

  it('accepts every slider position and nothing else', () => {
    for (let v = 50; v <= 150; v += 10) expect(isValidIntensity(v)).toBe(true);
    for (const bad of [40, 49, 55, 100.5, 151, 160, 0, -100, Number.NaN, Infinity, '100', null]) {
      expect(isValidIntensity(bad)).toBe(false);
    }
  });
});

describe('appliedDimensions', () => {
  it("gives an edit's pixels: fitted inside 4096 px, never enlarged, either way round", () => {
    expect(APPLY_MAX_SIZE).toBe(4096);
    expect(appliedDimensions(640, 480)).toEqual({ width: 640, height: 480 });
    expect(appliedDimensions(4096, 4096)).toEqual({ width: 4096, height: 4096 });
    // 3001 x 4096 / 4099 = 2998.8, rounded as libvips does (photos-manage.api.test.ts checks the render).
    expect(appliedDimensions(4099, 3001)).toEqual({ width: 4096, height: 2999 });
    expect(appliedDimensions(3001, 4099)).toEqual({ width: 2999, height: 4096 });
    expect(appliedDimensions(8064, 6048)).toEqual({ width: 4096, height: 3072 });
  });
});
