/**
 * Poolings of one convolutional block's map beyond the global mean the embedding has always used.
 * The global mean throws away where things are; a coarse grid keeps the layout (sky above, ground
 * below, a subject in the middle), and a maximum keeps a small strong detail a mean dilutes. Pure
 * functions on one photo's map, [channels, height, width] (ONNX's layout), so the feature cache
 * (scripts/vision-features-pooled.ts) and its tests compute the same values. Every value is
 * square-rooted like the embedding (the blocks are ReLU outputs, so they are never negative).
 */

export type PoolKind = 'mean' | 'max' | 'grid2' | 'halves';

/** Rows (or columns) of half `i` (0 or 1) of a side of n cells: both halves share the middle cell when n is odd. */
export function halfRange(n: number, i: 0 | 1): [number, number] {
  return i === 0 ? [0, Math.ceil(n / 2)] : [Math.floor(n / 2), n];
}

/** How many values a pooling gives for a block of `channels` channels. */
export function pooledWidth(kind: PoolKind, channels: number): number {
  return kind === 'grid2' ? 4 * channels : kind === 'halves' ? 2 * channels : channels;
}

function meanOver(
  map: ArrayLike<number>,
  c: number,
  h: number,
  w: number,
  [y0, y1]: [number, number],
  [x0, x1]: [number, number],
): number {
  let s = 0;
  const plane = c * h * w;
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) s += map[plane + y * w + x]!;
  return s / ((y1 - y0) * (x1 - x0));
}

/**
 * One pooling of a block map [channels, height, width], square-rooted:
 *  - mean: per channel over the whole map;
 *  - max: per channel, the largest value;
 *  - grid2: per channel, the mean of each quarter (top-left, top-right, bottom-left, bottom-right),
 *    channel-major within each quarter: all channels of the top-left quarter first;
 *  - halves: per channel, the mean of the top half, then of the bottom half.
 * Quarters and halves of an odd side share its middle row or column.
 */
export function poolBlock(
  map: ArrayLike<number>,
  channels: number,
  h: number,
  w: number,
  kind: PoolKind,
): Float32Array {
  if (map.length !== channels * h * w || h < 1 || w < 1) {
    throw new Error(`pooling: a map of ${map.length} values is not ${channels}x${h}x${w}`);
  }
  const out = new Float32Array(pooledWidth(kind, channels));
  const all: [number, number] = [0, h];
  const allX: [number, number] = [0, w];
  for (let c = 0; c < channels; c++) {
    if (kind === 'mean') out[c] = meanOver(map, c, h, w, all, allX);
    else if (kind === 'max') {
      let m = 0;
      const base = c * h * w;
      for (let j = 0; j < h * w; j++) m = Math.max(m, map[base + j]!);
      out[c] = m;
    } else if (kind === 'halves') {
      out[c] = meanOver(map, c, h, w, halfRange(h, 0), allX);
      out[channels + c] = meanOver(map, c, h, w, halfRange(h, 1), allX);
    } else {
      for (let q = 0; q < 4; q++) {
        const rows = halfRange(h, q < 2 ? 0 : 1);
        const cols = halfRange(w, q % 2 === 0 ? 0 : 1);
        out[q * channels + c] = meanOver(map, c, h, w, rows, cols);
      }
    }
  }
  for (let i = 0; i < out.length; i++) out[i] = Math.sqrt(Math.max(out[i]!, 0));
  return out;
}
