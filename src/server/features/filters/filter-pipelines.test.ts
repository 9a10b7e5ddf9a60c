import sharp from 'sharp';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FILTERS } from '@domain/filters';
import { applyFilter, FILTER_IDS, FILTER_OUTPUT, FILTER_PIPELINES, type FilterId } from './filter-pipelines';

// A real, colourful photo (paint brushes, 400x315): synthetic gradients would let a
// filter pass while looking wrong on actual pictures.
const FIXTURE = readFileSync(fileURLToPath(new URL('./fixtures/paint-brushes-400.jpg', import.meta.url)));

interface Metrics {
  width: number;
  height: number;
  /** Mean of (R − B): warmth. */
  redMinusBlue: number;
  /** Mean HSV saturation, 0..1. */
  saturation: number;
  /** Mean and max of (max − min channel), 0..255: exactly 0 for a true monochrome. */
  meanChroma: number;
  maxChroma: number;
  /** Standard deviation of Rec. 709 luma: global contrast. */
  lumaStd: number;
  /** Mean |4-neighbour Laplacian| of luma: high-frequency energy. */
  laplacian: number;
}

async function measure(image: Buffer): Promise<Metrics> {
  const { data, info } = await sharp(image).raw().toBuffer({ resolveWithObject: true });
  const { width, height, channels } = info;
  expect(channels).toBe(3);
  const n = width * height;
  const luma = new Float64Array(n);
  let rb = 0;
  let sat = 0;
  let chroma = 0;
  let maxChroma = 0;
  let sum = 0;
  let sumSq = 0;
  for (let i = 0, p = 0; i < n; i++, p += 3) {
    const r = data[p];
    const g = data[p + 1];
    const b = data[p + 2];
    const max = Math.max(r, g, b);
    const min = Math.min(r, g, b);
    rb += r - b;
    sat += max === 0 ? 0 : (max - min) / max;
    chroma += max - min;
    maxChroma = Math.max(maxChroma, max - min);
    const l = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    luma[i] = l;
    sum += l;
    sumSq += l * l;
  }
  let lap = 0;
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const i = y * width + x;
      lap += Math.abs(4 * luma[i] - luma[i - 1] - luma[i + 1] - luma[i - width] - luma[i + width]);
    }
  }
  const mean = sum / n;
  return {
    width,
    height,
    redMinusBlue: rb / n,
    saturation: sat / n,
    meanChroma: chroma / n,
    maxChroma,
    lumaStd: Math.sqrt(sumSq / n - mean * mean),
    laplacian: lap / ((width - 2) * (height - 2)),
  };
}

const LEVELS = [50, 100, 150] as const;
type Level = (typeof LEVELS)[number];

let original: Metrics;
const results = new Map<FilterId, Record<Level, Metrics>>();

beforeAll(async () => {
  original = await measure(FIXTURE);
  await Promise.all(
    FILTER_IDS.map(async (id) => {
      const [m50, m100, m150] = await Promise.all(
        LEVELS.map(async (level) => measure(await applyFilter(FIXTURE, id, level))),
      );
      results.set(id, { 50: m50, 100: m100, 150: m150 });
    }),
  );
});

function at(id: FilterId): Record<Level, Metrics> {
  const r = results.get(id);
  if (!r) throw new Error(`no results for ${id}`);
  return r;
}

/** original < 50 < 100 < 150 for a metric the filter should raise. */
function expectRising(id: FilterId, metric: keyof Metrics): void {
  const r = at(id);
  expect(r[50][metric]).toBeGreaterThan(original[metric]);
  expect(r[100][metric]).toBeGreaterThan(r[50][metric]);
  expect(r[150][metric]).toBeGreaterThan(r[100][metric]);
}

/** original > 50 > 100 > 150 for a metric the filter should lower. */
function expectFalling(id: FilterId, metric: keyof Metrics): void {
  const r = at(id);
  expect(r[50][metric]).toBeLessThan(original[metric]);
  expect(r[100][metric]).toBeLessThan(r[50][metric]);
  expect(r[150][metric]).toBeLessThan(r[100][metric]);
}

/** Intensity 50 should land roughly halfway between the original and the designed look. */
function expectRoughlyHalfway(id: FilterId, metric: keyof Metrics): void {
  const r = at(id);
  const fraction = (r[50][metric] - original[metric]) / (r[100][metric] - original[metric]);
  expect(fraction).toBeGreaterThan(0.3);
  expect(fraction).toBeLessThan(0.7);
}

describe('filter table', () => {
  it('has one pipeline per spec filter, carrying the shared names and descriptions', () => {
    expect(Object.keys(FILTER_PIPELINES).sort()).toEqual([...FILTER_IDS].sort());
    for (const id of FILTER_IDS) {
      expect(FILTER_PIPELINES[id]).toMatchObject(FILTERS[id]);
    }
    expect(FILTER_PIPELINES.black_white.name).toBe('Classic B&W');
    expect(FILTER_PIPELINES.sunset.name).toBe('Golden Hour');
  });
});

describe('applyFilter on a real photo', () => {
  it('returns a JPEG the size of the input', async () => {
    const out = await applyFilter(FIXTURE, 'vintage', 100);
    expect([...out.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    const meta = await sharp(out).metadata();
    expect(meta.format).toBe(FILTER_OUTPUT.format);
    expect([meta.width, meta.height]).toEqual([original.width, original.height]);
  });

  it('limits the long side to maxSize and never enlarges', async () => {
    const small = await sharp(await applyFilter(FIXTURE, 'sunset', 100, { maxSize: 200 })).metadata();
    expect(Math.max(small.width, small.height)).toBe(200);
    const same = await sharp(await applyFilter(FIXTURE, 'sunset', 100, { maxSize: 4000 })).metadata();
    expect([same.width, same.height]).toEqual([original.width, original.height]);
  });

  it('auto-rotates according to EXIF orientation', async () => {
    // Orientation 6 = stored sideways, displayed rotated 90° clockwise.
    const tagged = await sharp(FIXTURE).jpeg({ quality: 95 }).withMetadata({ orientation: 6 }).toBuffer();
    const pixels = async (input: Buffer) =>
      sharp(await applyFilter(input, 'vintage', 100))
        .raw()
        .toBuffer({ resolveWithObject: true });
    const got = await pixels(tagged);
    expect([got.info.width, got.info.height]).toEqual([original.height, original.width]);

    // Re-encoding differences stay small; the wrong rotation would be far off.
    const meanAbsDiff = async (angle: number): Promise<number> => {
      const ref = await pixels(await sharp(FIXTURE).rotate(angle).jpeg({ quality: 95 }).toBuffer());
      let diff = 0;
      for (let i = 0; i < ref.data.length; i++) diff += Math.abs(got.data[i] - ref.data[i]);
      return diff / ref.data.length;
    };
    expect(await meanAbsDiff(90)).toBeLessThan(4);
    expect(await meanAbsDiff(270)).toBeGreaterThan(20);
  });

  it('accepts greyscale and transparent inputs and still returns RGB', async () => {
    const grey = await sharp(FIXTURE).greyscale().png().toBuffer();
    const transparent = await sharp(FIXTURE).ensureAlpha(0.5).png().toBuffer();
    for (const input of [grey, transparent]) {
      const { info } = await sharp(await applyFilter(input, 'vibrant', 120))
        .raw()
        .toBuffer({ resolveWithObject: true });
      expect(info.channels).toBe(3);
    }
  });

  it('rejects unknown filters, out-of-range intensities and bad sizes', async () => {
    await expect(applyFilter(FIXTURE, 'sepia' as FilterId, 100)).rejects.toThrow(RangeError);
    for (const bad of [49, 151, Number.NaN, Infinity]) {
      await expect(applyFilter(FIXTURE, 'vintage', bad)).rejects.toThrow(RangeError);
    }
    await expect(applyFilter(FIXTURE, 'vintage', 100, { maxSize: 0 })).rejects.toThrow(RangeError);
    await expect(applyFilter(FIXTURE, 'vintage', 100, { maxSize: 12.5 })).rejects.toThrow(RangeError);
  });

  it('accepts intensities between slider steps (the effect is continuous)', async () => {
    const out = await measure(await applyFilter(FIXTURE, 'vintage', 75));
    expect(out.redMinusBlue).toBeGreaterThan(at('vintage')[50].redMinusBlue);
    expect(out.redMinusBlue).toBeLessThan(at('vintage')[100].redMinusBlue);
  });
});

describe('filter effects, strictly ordered by intensity 50 < 100 < 150', () => {
  it('vintage warms the image (mean R − B rises)', () => {
    expectRising('vintage', 'redMinusBlue');
    expectRoughlyHalfway('vintage', 'redMinusBlue');
  });

  it('vintage fades (contrast falls) and mutes colour', () => {
    expectFalling('vintage', 'lumaStd');
    expectFalling('vintage', 'saturation');
  });

  it('sunset warms the image (mean R − B rises)', () => {
    expectRising('sunset', 'redMinusBlue');
    expectRoughlyHalfway('sunset', 'redMinusBlue');
  });

  it('dramatic raises contrast (luma std dev) and local detail', () => {
    expectRising('dramatic', 'lumaStd');
    expectRoughlyHalfway('dramatic', 'lumaStd');
    expectRising('dramatic', 'laplacian');
  });

  it('vibrant raises mean saturation without shifting brightness much', () => {
    expectRising('vibrant', 'saturation');
    expectRoughlyHalfway('vibrant', 'saturation');
    for (const level of LEVELS) {
      const lumaShift = Math.abs(at('vibrant')[level].lumaStd - original.lumaStd);
      expect(lumaShift).toBeLessThan(3);
    }
  });

  it('soft_portrait lowers high-frequency energy (mean |Laplacian|)', () => {
    expectFalling('soft_portrait', 'laplacian');
    // ... and it lifts rather than darkens.
    expect(at('soft_portrait')[100].lumaStd).toBeLessThan(original.lumaStd);
  });

  it('black_white is monochrome from 100 up, partly desaturated at 50', () => {
    const r = at('black_white');
    for (const level of [100, 150] as const) {
      expect(r[level].meanChroma).toBeLessThan(0.5);
      expect(r[level].maxChroma).toBeLessThanOrEqual(2);
    }
    expect(r[50].saturation).toBeLessThan(original.saturation);
    expect(r[50].saturation).toBeGreaterThan(r[100].saturation + 0.1);
    expectRoughlyHalfway('black_white', 'meanChroma');
  });

  it('black_white adds contrast, and above 100 only contrast keeps growing', () => {
    expectRising('black_white', 'lumaStd');
  });
});
