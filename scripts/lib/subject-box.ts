import sharp from 'sharp';
import { EMBEDDING_INPUT, type RgbImage } from '../../src/server/features/analysis/vision/embedder';

/**
 * Where the subject of a cut-out is: an object drawn or photographed on white (clip art, stamps,
 * product-style shots). The engine squashes every photo to its square input; a wide car or a tall
 * bottle on white is then distorted out of the shapes the network knows, and a small subject leaves
 * it looking mostly at white. For a cut-out the embedding's input is instead a square box around the
 * subject with a margin, padded with white where it passes the photo's edge, so the subject keeps its
 * proportions and fills the input. A photo counts as a cut-out only when most of its border is white;
 * an ordinary photo (scenery reaches its edges) is left whole. The rule is fixed here and
 * cross-validated as it is (bench/README.md, acc7a). No view of the subject beat the whole photo
 * there, so the engine does not crop: this lives beside the feature scripts (vision-features.ts's
 * `subject` view), which call it on the decoded pixels the engine would have.
 */
export interface SubjectBox {
  /** May be negative, and the box may pass the right or bottom edge: that part is white padding. */
  left: number;
  top: number;
  /** width === height: the box is square. */
  width: number;
  height: number;
}

/** Border strip examined, as a share of the shorter side (at least 2 px). */
const BORDER_SHARE = 0.03;
/** A pixel is white when every channel is at least this (JPEG noise around 255 included). */
const WHITE = 227;
/** Share of the border that must be white for the photo to count as a cut-out. */
export const CUTOUT_BORDER = 0.5;
/** A row or column holds the subject when at least this share of its pixels is not white. */
const LINE_SHARE = 0.01;
/** Margin added around the subject on each side, as a share of its longer side. */
const MARGIN = 0.06;
/** No box when the subject is smaller than this share of the photo (a speck, noise). */
const MIN_AREA = 0.002;

/**
 * The square box to embed instead of the whole photo, or undefined when the photo is not a cut-out:
 * less than CUTOUT_BORDER of its border is white, or nothing but specks differ from white.
 */
export function subjectBox(img: RgbImage): SubjectBox | undefined {
  const { width: w, height: h, data } = img;
  if (w < 8 || h < 8) return undefined;
  const b = Math.max(2, Math.round(Math.min(w, h) * BORDER_SHARE));
  const rows = new Uint32Array(h);
  const cols = new Uint32Array(w);
  let borderWhite = 0;
  let borderN = 0;
  for (let y = 0; y < h; y++) {
    const edgeRow = y < b || y >= h - b;
    for (let x = 0; x < w; x++) {
      const s = (y * w + x) * 3;
      const white = data[s]! >= WHITE && data[s + 1]! >= WHITE && data[s + 2]! >= WHITE;
      if (!white) {
        rows[y]!++;
        cols[x]!++;
      }
      if (edgeRow || x < b || x >= w - b) {
        borderN++;
        if (white) borderWhite++;
      }
    }
  }
  if (borderWhite < CUTOUT_BORDER * borderN) return undefined;
  const rowMin = Math.max(1, Math.ceil(w * LINE_SHARE));
  const colMin = Math.max(1, Math.ceil(h * LINE_SHARE));
  let top = 0;
  while (top < h && rows[top]! < rowMin) top++;
  let bottom = h - 1;
  while (bottom > top && rows[bottom]! < rowMin) bottom--;
  let left = 0;
  while (left < w && cols[left]! < colMin) left++;
  let right = w - 1;
  while (right > left && cols[right]! < colMin) right--;
  if (top >= h || left >= w) return undefined;
  const bw = right - left + 1;
  const bh = bottom - top + 1;
  if (bw * bh < MIN_AREA * w * h) return undefined;
  const side = Math.round(Math.max(bw, bh) * (1 + 2 * MARGIN));
  return {
    left: Math.round(left + bw / 2 - side / 2),
    top: Math.round(top + bh / 2 - side / 2),
    width: side,
    height: side,
  };
}

/**
 * The embedding input of a cut-out (subjectBox above): the square box around its subject, the part
 * outside the photo padded with white, scaled to the square input (so without the squash the whole
 * photo gets); undefined when the photo is not a cut-out.
 */
export async function subjectInput(
  detect: RgbImage,
  embedSize: number = EMBEDDING_INPUT,
): Promise<RgbImage | undefined> {
  const box = subjectBox(detect);
  if (!box) return undefined;
  const { width: w, height: h } = detect;
  const x0 = Math.max(0, box.left);
  const y0 = Math.max(0, box.top);
  const x1 = Math.min(w, box.left + box.width);
  const y1 = Math.min(h, box.top + box.height);
  // Two passes: in one pipeline sharp would resize before it extends.
  const boxed = await sharp(Buffer.from(detect.data.buffer, detect.data.byteOffset, detect.data.length), {
    raw: { width: w, height: h, channels: 3 },
  })
    .extract({ left: x0, top: y0, width: x1 - x0, height: y1 - y0 })
    .extend({
      left: x0 - box.left,
      top: y0 - box.top,
      right: box.left + box.width - x1,
      bottom: box.top + box.height - y1,
      background: { r: 255, g: 255, b: 255 },
    })
    .raw()
    .toBuffer();
  const out = await sharp(boxed, { raw: { width: box.width, height: box.height, channels: 3 } })
    .resize(embedSize, embedSize, { fit: 'fill' })
    .raw()
    .toBuffer();
  return { data: new Uint8Array(out.buffer, out.byteOffset, out.length), width: embedSize, height: embedSize };
}
