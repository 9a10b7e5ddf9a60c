import sharp from 'sharp';

/**
 * A photo's visual fingerprint, computed from its thumbnail: a 192-number vector whose cosine
 * similarity says how alike two photos look (a 12 x 12 grey layout, centred so brightness does not
 * count, and a 4 x 4 colour layout), plus a 64-bit difference hash whose 16-bit bands bucket
 * near-identical photos so duplicates are found without comparing every pair.
 *
 * The analysis' InceptionV3 embedding is not stored by the analysis feature (its worker keeps the
 * category, tags and description only), so this is what "Similar photos" and "Possible duplicates"
 * compare; `FINGERPRINT_MODEL` names it so another vector can be stored beside it later.
 */
export const FINGERPRINT_MODEL = 'pixels-v1';
export const FINGERPRINT_DIMS = 12 * 12 + 4 * 4 * 3;
/** Share of the squared length given to the grey layout (the rest to colour). */
const GREY_WEIGHT = Math.sqrt(0.7);
const COLOUR_WEIGHT = Math.sqrt(0.3);

export interface Fingerprint {
  vector: Float32Array;
  /** 16 hex digits. */
  hash: string;
}

function normalise(v: number[], weight: number): number[] {
  const len = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return len === 0 ? v.map(() => 0) : v.map((x) => (x / len) * weight);
}

export async function fingerprint(image: Buffer): Promise<Fingerprint> {
  const base = sharp(image, { failOn: 'none' }).rotate().removeAlpha();
  const [grey, colour, diff] = await Promise.all([
    base.clone().grayscale().resize(12, 12, { fit: 'fill' }).raw().toBuffer(),
    base.clone().resize(4, 4, { fit: 'fill' }).toColourspace('srgb').raw().toBuffer(),
    base.clone().grayscale().resize(9, 8, { fit: 'fill' }).raw().toBuffer(),
  ]);
  const g = [...grey];
  const mean = g.reduce((s, x) => s + x, 0) / g.length;
  const c = [...colour].map((x) => x / 255 - 0.5);
  const vector = Float32Array.from([
    ...normalise(
      g.map((x) => x - mean),
      GREY_WEIGHT,
    ),
    ...normalise(c, COLOUR_WEIGHT),
  ]);
  let hash = '';
  for (let y = 0; y < 8; y++) {
    let byte = 0;
    for (let x = 0; x < 8; x++) byte = (byte << 1) | (diff[y * 9 + x]! < diff[y * 9 + x + 1]! ? 1 : 0);
    hash += byte.toString(16).padStart(2, '0');
  }
  return { vector, hash };
}

export const vectorToBytes = (v: Float32Array): Buffer => Buffer.from(v.buffer, v.byteOffset, v.byteLength);
export function bytesToVector(b: Uint8Array): Float32Array {
  const copy = new Uint8Array(b.byteLength);
  copy.set(b);
  return new Float32Array(copy.buffer);
}
