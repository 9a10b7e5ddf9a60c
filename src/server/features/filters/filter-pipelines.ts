/**
 * The six photo-editor filters, rendered with sharp (libvips) plus one tight
 * per-pixel pass in JS.
 *
 * Why this shape: sharp has no tone curves (LUTs), and its built-in colour and
 * sharpening operations (`modulate`, `sharpen`) work in LCh/LAB and measured
 * 4–6x slower than everything else at 12 MP. So libvips does what it is fast
 * at (decode, EXIF auto-orient, resize, gaussian blur, 3x3 colour matrix,
 * JPEG encode; all multi-threaded) and a single JS loop applies detail gain,
 * tone curves and the vignette in one pass over the pixels.
 *
 * Intensity: every filter is a recipe parametrised by w = intensity / 100.
 * Each operation moves linearly from the identity (w = 0) to the designed look
 * (w = 1) and keeps going past it (w = 1.5), so 50 % sits halfway towards the
 * original and 150 % is stronger. Where plain extrapolation would misbehave it
 * is capped on purpose (see black_white and soft_portrait).
 *
 * Output is always a baseline JPEG (sRGB, quality 85, metadata stripped):
 * browsers display it everywhere, and at 12 MP libjpeg-turbo encodes ~8x faster
 * than WebP, which is what keeps a full apply within budget.
 */
import sharp, { type Sharp } from 'sharp';
import { decodeHeic, isMissingCodecError, sharpFromHeic } from '../../lib/heic';
import { sniffImageType } from '../../lib/image-type';
import { FILTERS, FILTER_IDS, INTENSITY, isFilterId, type FilterId, type FilterInfo } from '@domain/filters';

export { FILTER_IDS };
export type { FilterId };

export const FILTER_OUTPUT = { format: 'jpeg', mimeType: 'image/jpeg', quality: 85 } as const;

/** A tone curve on normalised values: 0..1 in, 0..1 (ideally) out. */
type Curve = (t: number) => number;
/** Row-major 3x3 colour matrix applied to [r, g, b] column vectors. */
type Mat3 = readonly [number, number, number, number, number, number, number, number, number];

interface DetailStep {
  /** Gaussian sigma in pixels for a 1000 px long side; scaled so previews match full renders. */
  readonly sigmaAt1000: number;
  /** > 0 adds (original − blurred) back, i.e. local contrast / sharpening; < 0 smooths. */
  readonly gain: number;
  /** Smooth only where original and blur differ little (texture, skin), leaving edges crisp. */
  readonly edgeAware: boolean;
}

export interface FilterRecipe {
  /** Per-channel tone curves [r, g, b], applied first. */
  readonly curves: readonly [Curve, Curve, Curve];
  /** Applied after the curves; identity means no colour change. */
  readonly matrix: Mat3;
  /** Darkening at the frame corners, 0 = none, 0.3 = corners at 70 % brightness. */
  readonly vignette: number;
  readonly detail: DetailStep | null;
}

export interface FilterPipeline extends FilterInfo {
  /** w = intensity / 100; 1 is the look as designed. */
  readonly recipe: (w: number) => FilterRecipe;
}

// ---------------------------------------------------------------------------
// Building blocks

const IDENTITY: Mat3 = [1, 0, 0, 0, 1, 0, 0, 0, 1];

/** Rec. 709 luma weights: saturation changes then keep perceived brightness. */
const LUMA_709 = [0.2126, 0.7152, 0.0722] as const;
/** Classic panchromatic-film weighting, a touch more red than Rec. 709, for B&W. */
const LUMA_FILM = [0.3, 0.59, 0.11] as const;

function multiply(a: Mat3, b: Mat3): Mat3 {
  const m = (r: number, c: number): number => a[r * 3] * b[c] + a[r * 3 + 1] * b[3 + c] + a[r * 3 + 2] * b[6 + c];
  return [m(0, 0), m(0, 1), m(0, 2), m(1, 0), m(1, 1), m(1, 2), m(2, 0), m(2, 1), m(2, 2)];
}

function saturation(s: number, luma: readonly [number, number, number] = LUMA_709): Mat3 {
  const [lr, lg, lb] = luma;
  const k = 1 - s;
  return [k * lr + s, k * lg, k * lb, k * lr, k * lg + s, k * lb, k * lr, k * lg, k * lb + s];
}

function gains(r: number, g: number, b: number): Mat3 {
  return [r, 0, 0, 0, g, 0, 0, 0, b];
}

/** Linear path from identity (w = 0) through `m` (w = 1) and beyond. */
function towardsMatrix(m: Mat3, w: number): Mat3 {
  const t = (i: number): number => IDENTITY[i] + w * (m[i] - IDENTITY[i]);
  return [t(0), t(1), t(2), t(3), t(4), t(5), t(6), t(7), t(8)];
}

/** Linear path from the identity curve (w = 0) through `curve` (w = 1) and beyond. */
function towardsCurve(curve: Curve, w: number): Curve {
  return (t) => t + w * (curve(t) - t);
}

const compose =
  (...fs: Curve[]): Curve =>
  (t) =>
    fs.reduce((acc, f) => f(acc), t);

/** S-curve: k = 0 is linear, k = 1 is smoothstep (mid-tone slope 1.5), without clipping the ends. */
const contrast =
  (k: number): Curve =>
  (t) =>
    t + k * (t * t * (3 - 2 * t) - t);
/** Film fade: blacks lifted to `lift`, whites pulled down by `cut`. */
const fade =
  (lift: number, cut: number): Curve =>
  (t) =>
    lift + t * (1 - lift - cut);
const power =
  (g: number): Curve =>
  (t) =>
    Math.pow(Math.max(0, t), g);
const scale =
  (k: number): Curve =>
  (t) =>
    t * k;

function sameCurve(c: Curve): readonly [Curve, Curve, Curve] {
  return [c, c, c];
}

// ---------------------------------------------------------------------------
// The filters

export const FILTER_PIPELINES: Readonly<Record<FilterId, FilterPipeline>> = {
  vintage: {
    ...FILTERS.vintage,
    recipe: (w) => ({
      // Faded film: lifted blacks, slightly muted highlights, and blue held back
      // in the highlights so whites turn cream rather than clean.
      curves: [
        towardsCurve(compose(contrast(0.2), fade(0.1, 0.03)), w),
        towardsCurve(compose(contrast(0.2), fade(0.08, 0.05)), w),
        towardsCurve(compose(contrast(0.2), fade(0.06, 0.13)), w),
      ],
      matrix: towardsMatrix(multiply(gains(1.05, 1, 0.9), saturation(0.75)), w),
      vignette: 0.3 * w,
      detail: null,
    }),
  },

  dramatic: {
    ...FILTERS.dramatic,
    recipe: (w) => ({
      // Gamma > 1 deepens shadows before the S-curve adds the punch.
      curves: sameCurve(towardsCurve(compose(power(1.2), contrast(0.9)), w)),
      matrix: towardsMatrix(saturation(1.12), w),
      vignette: 0.18 * w,
      // A mid-radius unsharp mask reads as local contrast ("clarity") and sharpening at once.
      detail: { sigmaAt1000: 2.5, gain: 0.9 * w, edgeAware: false },
    }),
  },

  soft_portrait: {
    ...FILTERS.soft_portrait,
    recipe: (w) => ({
      // Gentle lift of shadows and mid-tones, a little warmer in red for skin.
      curves: [
        towardsCurve(compose(power(0.84), fade(0.045, 0)), w),
        towardsCurve(compose(power(0.86), fade(0.035, 0)), w),
        towardsCurve(compose(power(0.88), fade(0.03, 0)), w),
      ],
      matrix: towardsMatrix(saturation(0.92), w),
      vignette: 0,
      // Capped at -1 (= fully the blurred value): beyond that the detail would come
      // back inverted and the image would get busier, not smoother.
      detail: { sigmaAt1000: 3, gain: -Math.min(1, 0.85 * w), edgeAware: true },
    }),
  },

  vibrant: {
    ...FILTERS.vibrant,
    recipe: (w) => ({
      curves: sameCurve(towardsCurve(contrast(0.12), w)),
      matrix: towardsMatrix(saturation(1.5), w),
      vignette: 0,
      detail: null,
    }),
  },

  black_white: {
    ...FILTERS.black_white,
    recipe: (w) => ({
      curves: sameCurve(towardsCurve(contrast(0.55), w)),
      // Desaturation stops at fully monochrome: extrapolating it would bring colour back
      // (inverted). Above 100 % only the contrast keeps growing.
      matrix: towardsMatrix(saturation(0, LUMA_FILM), Math.min(1, w)),
      vignette: 0,
      detail: null,
    }),
  },

  sunset: {
    ...FILTERS.sunset,
    recipe: (w) => ({
      // Warm the shadows and mid-tones (red up, blue down) for low golden light.
      curves: [
        towardsCurve(compose(power(0.9), contrast(0.15)), w),
        towardsCurve(compose(power(0.97), contrast(0.15)), w),
        towardsCurve(compose(power(1.1), scale(0.93), contrast(0.15)), w),
      ],
      matrix: towardsMatrix(multiply(gains(1.06, 1.01, 0.88), saturation(1.15)), w),
      vignette: 0.12 * w,
      detail: null,
    }),
  },
};

// ---------------------------------------------------------------------------
// Rendering

export interface ApplyFilterOptions {
  /** Longest side of the output in pixels; smaller inputs are never enlarged. Omit for full size. */
  maxSize?: number;
  /** Refuse inputs whose header claims more pixels than this (sharp's default otherwise). */
  limitInputPixels?: number;
}

let pixelPasses = 0;
/**
 * How many times this thread ran the per-pixel JS pass: lets a test prove that an apply's pass
 * ran in a filter thread and not on the HTTP event loop.
 */
export const pixelPassCount = () => pixelPasses;

/**
 * Renders `filterId` at `intensity` percent (any value in 50..150; the editor
 * sends steps of 10) and returns a JPEG (see FILTER_OUTPUT). The input may be
 * any format sharp decodes; it is auto-oriented from EXIF, alpha is flattened
 * onto white and the result is sRGB with metadata stripped.
 */
export async function applyFilter(
  input: Buffer | RawRgb,
  filterId: FilterId,
  intensity: number,
  opts: ApplyFilterOptions = {},
): Promise<Buffer> {
  const filtered = await renderFilter(input, filterId, intensity, opts);
  return filtered.jpeg({ quality: FILTER_OUTPUT.quality, chromaSubsampling: '4:2:0' }).toBuffer();
}

/** sharp's own default `limitInputPixels`, for the HEIC decoder when the caller gives none. */
const SHARP_DEFAULT_PIXEL_LIMIT = 0x3fff * 0x3fff;

/** Decoded, oriented sRGB pixels (3 channels): what `decodeForFilters` returns, reusable across renders. */
export interface RawRgb {
  data: Buffer;
  width: number;
  height: number;
}

/**
 * Decodes (EXIF-oriented, alpha flattened, sRGB) once so several renders of the same source
 * (the editor's previews at other filters and intensities) skip the decode.
 */
export async function decodeForFilters(input: Buffer, opts: ApplyFilterOptions = {}): Promise<RawRgb> {
  const run = (source: Sharp) => {
    let decode = source;
    if (opts.maxSize !== undefined) {
      decode = decode.resize({ width: opts.maxSize, height: opts.maxSize, fit: 'inside', withoutEnlargement: true });
    }
    return decode
      .flatten({ background: '#ffffff' })
      .toColourspace('srgb')
      .raw({ depth: 'uchar' })
      .toBuffer({ resolveWithObject: true });
  };
  const { data, info } = await run(
    sharp(input, opts.limitInputPixels ? { limitInputPixels: opts.limitInputPixels } : {}).autoOrient(),
  ).catch(async (err: unknown) => {
    // A HEIC original that this sharp cannot decode (no HEVC): the WASM decoder's pixels instead.
    // Any failure on HEIC bytes goes there, as on upload (image-pipeline.ts, `decodeWith`): with
    // other images decoding at once, libvips does not always name the missing codec.
    if (!isMissingCodecError(err) && !(Buffer.isBuffer(input) && sniffImageType(input) === 'image/heic')) throw err;
    return run(sharpFromHeic(await decodeHeic(input, opts.limitInputPixels || SHARP_DEFAULT_PIXEL_LIMIT)));
  });
  if (info.channels !== 3) throw new Error(`Expected 3 channels after decode, got ${info.channels}`);
  return { data, width: info.width, height: info.height };
}

/**
 * The filtered image as a sharp pipeline, not yet encoded: `applyFilter` makes it a JPEG, the
 * photo editor's apply also makes WebP derivatives from it.
 */
export async function renderFilter(
  input: Buffer | RawRgb,
  filterId: FilterId,
  intensity: number,
  opts: ApplyFilterOptions = {},
): Promise<Sharp> {
  // Re-checked at run time because ids and numbers arrive from HTTP bodies.
  if (!isFilterId(filterId)) throw new RangeError(`Unknown filter: ${String(filterId)}`);
  if (!Number.isFinite(intensity) || intensity < INTENSITY.min || intensity > INTENSITY.max) {
    throw new RangeError(`Intensity must be between ${INTENSITY.min} and ${INTENSITY.max}, got ${intensity}`);
  }
  const { maxSize } = opts;
  if (maxSize !== undefined && !(Number.isInteger(maxSize) && maxSize > 0)) {
    throw new RangeError(`maxSize must be a positive integer, got ${maxSize}`);
  }

  const recipe = FILTER_PIPELINES[filterId].recipe(intensity / 100);

  let source: RawRgb;
  if (Buffer.isBuffer(input))
    source = await decodeForFilters(input, { maxSize, limitInputPixels: opts.limitInputPixels });
  else if (maxSize !== undefined && Math.max(input.width, input.height) > maxSize) {
    const { data, info } = await sharp(input.data, { raw: { width: input.width, height: input.height, channels: 3 } })
      .resize({ width: maxSize, height: maxSize, fit: 'inside' })
      .raw()
      .toBuffer({ resolveWithObject: true });
    source = { data, width: info.width, height: info.height };
  } else source = input;
  const { data, width, height } = source;
  const raw = { raw: { width, height, channels: 3 } } as const;

  let blurred: Buffer | null = null;
  if (recipe.detail && recipe.detail.gain !== 0) {
    const sigma = (recipe.detail.sigmaAt1000 * Math.max(width, height)) / 1000;
    // libvips rejects sigma < 0.3; at that size a blur is a no-op anyway.
    if (sigma >= 0.3) blurred = await sharp(data, raw).blur(sigma).raw().toBuffer();
  }

  const toned = renderPixels(data, blurred, width, height, recipe);
  let encode = sharp(Buffer.from(toned.buffer, toned.byteOffset, toned.byteLength), raw);
  // The matrix runs in libvips (SIMD, threaded, streamed into the encoder) rather than
  // in the JS loop; that halves the loop's cost at 12 MP. Applying it after the vignette
  // is exact because a per-pixel scalar commutes with a linear map.
  if (!isIdentity(recipe.matrix)) encode = encode.recomb(toRows(recipe.matrix));
  return encode;
}

function isIdentity(m: Mat3): boolean {
  return m.every((v, i) => v === IDENTITY[i]);
}

function toRows(m: Mat3): [[number, number, number], [number, number, number], [number, number, number]] {
  return [
    [m[0], m[1], m[2]],
    [m[3], m[4], m[5]],
    [m[6], m[7], m[8]],
  ];
}

/** Edge-aware smoothing halves its strength where blur and original differ by this much (0..255). */
const EDGE_THRESHOLD = 14;

function toLut(curve: Curve): Float32Array {
  const lut = new Float32Array(256);
  for (let i = 0; i < 256; i++) lut[i] = 255 * Math.min(1, Math.max(0, curve(i / 255)));
  return lut;
}

/**
 * One pass over interleaved RGB: detail gain, tone curves, vignette (the colour
 * matrix follows in libvips). Constants are hoisted and per-pixel divisions
 * replaced by tables because at 12 MP this loop is the largest single cost
 * after JPEG decode and encode.
 */
function renderPixels(
  src: Uint8Array,
  blurred: Uint8Array | null,
  width: number,
  height: number,
  recipe: FilterRecipe,
): Uint8ClampedArray {
  pixelPasses += 1;
  const out = new Uint8ClampedArray(width * height * 3);
  const lr = toLut(recipe.curves[0]);
  const lg = toLut(recipe.curves[1]);
  const lb = toLut(recipe.curves[2]);

  // Detail gain per |luma difference| between original and blur. Edge-aware smoothing
  // fades out as the difference grows, so texture is smoothed but edges stay crisp.
  const gain = recipe.detail?.gain ?? 0;
  const edgeAware = recipe.detail?.edgeAware ?? false;
  const gainByDiff = new Float32Array(256);
  for (let d = 0; d < 256; d++) gainByDiff[d] = edgeAware ? gain / (1 + (d / EDGE_THRESHOLD) ** 2) : gain;

  // Elliptical vignette following the frame: f = 0 at the centre, 1 in the corners;
  // darkening grows with f^2 so the middle of the frame stays untouched.
  const k = recipe.vignette;
  const cx = width / 2;
  const cy = height / 2;
  const fx = new Float32Array(width);
  for (let x = 0; x < width; x++) fx[x] = ((x + 0.5 - cx) / cx) ** 2 / 2;

  let p = 0;
  for (let y = 0; y < height; y++) {
    const fy = ((y + 0.5 - cy) / cy) ** 2 / 2;
    for (let x = 0; x < width; x++, p += 3) {
      let r = src[p];
      let g = src[p + 1];
      let b = src[p + 2];
      if (blurred !== null) {
        const dr = r - blurred[p];
        const dg = g - blurred[p + 1];
        const db = b - blurred[p + 2];
        const dl = 0.2126 * dr + 0.7152 * dg + 0.0722 * db;
        const a = gainByDiff[dl < 0 ? -dl | 0 : dl | 0];
        r = clampByte(r + a * dr);
        g = clampByte(g + a * dg);
        b = clampByte(b + a * db);
      }
      const f = fx[x] + fy;
      const v = 1 - k * f * f;
      // Uint8ClampedArray rounds and clamps on store.
      out[p] = lr[r] * v;
      out[p + 1] = lg[g] * v;
      out[p + 2] = lb[b] * v;
    }
  }
  return out;
}

function clampByte(v: number): number {
  return v <= 0 ? 0 : v >= 255 ? 255 : (v + 0.5) | 0;
}
