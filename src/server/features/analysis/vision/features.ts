/**
 * The category probe's input when the reference file names feature groups (`features`) instead of
 * only the global means of `layers`: `<block>/<pooling>` (vision/pooling.ts, from the block's map
 * of the same network run) and `handmade` (classifier/handmade.ts, from the embedding input's
 * pixels), concatenated in the file's order. scripts/vision-features-pooled.ts caches the same
 * groups with the same functions, so the engine computes what was cross-validated.
 */
import { handmadeFeatures, HANDMADE_DIMS } from '../classifier/handmade';
import type { BlockMap, RgbImage } from './embedder';
import { poolBlock, pooledWidth, type PoolKind } from './pooling';

const KINDS: readonly PoolKind[] = ['mean', 'max', 'grid2', 'halves'];

export type FeatureGroup = { kind: 'handmade' } | { kind: PoolKind; block: string };

export function parseFeatureGroup(name: string): FeatureGroup {
  if (name === 'handmade') return { kind: 'handmade' };
  const [block, kind, ...rest] = name.split('/');
  if (!block || rest.length > 0 || !(KINDS as readonly string[]).includes(kind ?? '')) {
    throw new Error(`vision: unknown feature group ${name}`);
  }
  return { kind: kind as PoolKind, block };
}

/** Blocks whose maps the groups read, in first-use order. */
export function blocksOf(names: readonly string[]): string[] {
  const out: string[] = [];
  for (const g of names.map(parseFeatureGroup)) if (g.kind !== 'handmade' && !out.includes(g.block)) out.push(g.block);
  return out;
}

/** Width of the concatenated groups, given each block's channel count. */
export function featureWidth(names: readonly string[], channels: Readonly<Record<string, number>>): number {
  return names.map(parseFeatureGroup).reduce((a, g) => {
    if (g.kind === 'handmade') return a + HANDMADE_DIMS;
    const c = channels[g.block];
    if (c === undefined) throw new Error(`vision: no channel count for ${g.block}`);
    return a + pooledWidth(g.kind, c);
  }, 0);
}

export function featureVector(
  names: readonly string[],
  maps: Readonly<Record<string, BlockMap>>,
  pixels: RgbImage,
): Float32Array {
  const parts = names.map(parseFeatureGroup).map((g) => {
    if (g.kind === 'handmade') return handmadeFeatures(pixels);
    const m = maps[g.block];
    if (!m) throw new Error(`vision: the map of ${g.block} is missing`);
    return poolBlock(m.data, m.channels, m.height, m.width, g.kind);
  });
  const out = new Float32Array(parts.reduce((a, p) => a + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
