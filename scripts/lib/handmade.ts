/**
 * A few cheap whole-photo statistics beside the embedding, computed from the pixels the embedding
 * network sees: colour by band (sky above, ground below), saturation and hue, how much of the photo
 * is plain white or black background (cut-outs), and edge orientation (man-made scenes are full of
 * straight horizontal and vertical lines, landscapes are not). Pure and deterministic; what the
 * classifier does with them is chosen by cross-validation (scripts/classifier-candidates.ts).
 */

export interface Pixels {
  data: ArrayLike<number>;
  width: number;
  height: number;
}

const HUE_BINS = 12;
const ORIENTATION_BINS = 8;
/** Gradient magnitude (Sobel on 0..255 grey) above which a pixel counts as an edge. */
const EDGE = 96;

export const HANDMADE_NAMES: readonly string[] = [
  ...['top', 'middle', 'bottom'].flatMap((band) => ['r', 'g', 'b'].map((ch) => `${band}_${ch}`)),
  'saturation_mean',
  'saturation_sd',
  'value_mean',
  'value_sd',
  ...Array.from({ length: HUE_BINS }, (_, i) => `hue_${i}`),
  'white_share',
  'black_share',
  'grey_share',
  'border_sd',
  'border_plain_share',
  'edge_mean',
  'edge_share',
  ...Array.from({ length: ORIENTATION_BINS }, (_, i) => `orientation_${i}`),
  'axis_aligned_share',
  'colourfulness',
];

export const HANDMADE_DIMS = HANDMADE_NAMES.length;

/** Hue (0..1), saturation and value (0..1) of one pixel. */
function hsv(r: number, g: number, b: number): [number, number, number] {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const d = max - min;
  const v = max / 255;
  const s = max === 0 ? 0 : d / max;
  let h = 0;
  if (d > 0) {
    if (max === r) h = ((g - b) / d + 6) % 6;
    else if (max === g) h = (b - r) / d + 2;
    else h = (r - g) / d + 4;
    h /= 6;
  }
  return [h, s, v];
}

export function handmadeFeatures(img: Pixels): Float32Array {
  const { data, width: w, height: h } = img;
  if (data.length < w * h * 3 || w < 3 || h < 3) throw new Error('handmade: expects RGB pixels, at least 3x3');
  const n = w * h;
  const out = new Float32Array(HANDMADE_DIMS);
  let o = 0;
  // Colour by horizontal band: the sky, the middle, the ground.
  for (let band = 0; band < 3; band++) {
    const y0 = Math.floor((band * h) / 3);
    const y1 = Math.floor(((band + 1) * h) / 3);
    const sum = [0, 0, 0];
    for (let y = y0; y < y1; y++)
      for (let x = 0; x < w; x++) for (let c = 0; c < 3; c++) sum[c]! += data[(y * w + x) * 3 + c]!;
    const count = (y1 - y0) * w;
    for (let c = 0; c < 3; c++) out[o++] = sum[c]! / count / 255;
  }
  const grey = new Float32Array(n);
  const hue = new Float64Array(HUE_BINS);
  let sSum = 0;
  let sSq = 0;
  let vSum = 0;
  let vSq = 0;
  let white = 0;
  let black = 0;
  let greyish = 0;
  let rgSum = 0;
  let rgSq = 0;
  let ybSum = 0;
  let ybSq = 0;
  for (let i = 0; i < n; i++) {
    const r = data[i * 3]!;
    const g = data[i * 3 + 1]!;
    const b = data[i * 3 + 2]!;
    grey[i] = 0.299 * r + 0.587 * g + 0.114 * b;
    const [hh, s, v] = hsv(r, g, b);
    sSum += s;
    sSq += s * s;
    vSum += v;
    vSq += v * v;
    hue[Math.min(HUE_BINS - 1, Math.floor(hh * HUE_BINS))]! += s;
    if (r > 235 && g > 235 && b > 235) white++;
    if (r < 20 && g < 20 && b < 20) black++;
    if (s < 0.1) greyish++;
    const rg = r - g;
    const yb = 0.5 * (r + g) - b;
    rgSum += rg;
    rgSq += rg * rg;
    ybSum += yb;
    ybSq += yb * yb;
  }
  const sd = (sum: number, sq: number) => Math.sqrt(Math.max(sq / n - (sum / n) ** 2, 0));
  out[o++] = sSum / n;
  out[o++] = sd(sSum, sSq);
  out[o++] = vSum / n;
  out[o++] = sd(vSum, vSq);
  for (let k = 0; k < HUE_BINS; k++) out[o++] = hue[k]! / n;
  out[o++] = white / n;
  out[o++] = black / n;
  out[o++] = greyish / n;
  // The border: a cut-out or a studio shot has a plain one.
  const border: number[] = [];
  for (let x = 0; x < w; x++) border.push(grey[x]!, grey[(h - 1) * w + x]!);
  for (let y = 1; y < h - 1; y++) border.push(grey[y * w]!, grey[y * w + w - 1]!);
  const bMean = border.reduce((a, v) => a + v, 0) / border.length;
  const bSd = Math.sqrt(border.reduce((a, v) => a + (v - bMean) ** 2, 0) / border.length);
  const sorted = [...border].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  out[o++] = bSd / 255;
  out[o++] = border.filter((v) => Math.abs(v - median) <= 12).length / border.length;
  // Edges (Sobel, interior pixels): strength, density, and the orientation of the strong ones.
  const orient = new Float64Array(ORIENTATION_BINS);
  let magSum = 0;
  let edges = 0;
  let strong = 0;
  let aligned = 0;
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const p = (yy: number, xx: number) => grey[yy * w + xx]!;
      const gx =
        p(y - 1, x + 1) + 2 * p(y, x + 1) + p(y + 1, x + 1) - p(y - 1, x - 1) - 2 * p(y, x - 1) - p(y + 1, x - 1);
      const gy =
        p(y + 1, x - 1) + 2 * p(y + 1, x) + p(y + 1, x + 1) - p(y - 1, x - 1) - 2 * p(y - 1, x) - p(y - 1, x + 1);
      const mag = Math.sqrt(gx * gx + gy * gy);
      magSum += mag;
      if (mag < EDGE) continue;
      edges++;
      strong += mag;
      // Orientation of the gradient modulo 180 degrees, in bins centred on 0, 22.5, 45, ... degrees.
      let a = Math.atan2(gy, gx);
      if (a < 0) a += Math.PI;
      const bin = Math.floor((a / Math.PI) * ORIENTATION_BINS + 0.5) % ORIENTATION_BINS;
      orient[bin]! += mag;
      // Within 10 degrees of horizontal or vertical.
      const deg = (a * 180) / Math.PI;
      if (Math.min(deg, Math.abs(deg - 90), 180 - deg) <= 10) aligned += mag;
    }
  }
  const interior = (w - 2) * (h - 2);
  out[o++] = magSum / interior / 1020;
  out[o++] = edges / interior;
  for (let k = 0; k < ORIENTATION_BINS; k++) out[o++] = strong > 0 ? orient[k]! / strong : 0;
  out[o++] = strong > 0 ? aligned / strong : 0;
  // Colourfulness (Hasler and Suesstrunk's opponent-colour measure), scaled to about 0..1.
  const colourful = Math.sqrt(sd(rgSum, rgSq) ** 2 + sd(ybSum, ybSq) ** 2) + 0.3 * Math.hypot(rgSum / n, ybSum / n);
  out[o++] = colourful / 150;
  if (o !== HANDMADE_DIMS) throw new Error('handmade: feature count mismatch');
  return out;
}
