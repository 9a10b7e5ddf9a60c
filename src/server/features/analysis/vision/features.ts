/**
 * The category probe's input when the reference file names feature groups (`features`) instead of
 * only the global means of `layers`: `<block>/<pooling>` (vision/pooling.ts, from the block's map
 * of the same network run) and `handmade` (classifier/handmade.ts, from the embedding input's
 * pixels) and `bb224/<map>` (coco-backbone.ts: the channel means of a map of the COCO detector's
 * backbone, run on the same 224 px input), concatenated in the file's order.
 * scripts/vision-features-pooled.ts and scripts/vision-features-coco.ts cache the same groups with
 * the same functions, so the engine computes what was cross-validated.
 */
import { handmadeFeatures, HANDMADE_DIMS } from '../classifier/handmade';
import type { BlockMap, RgbImage } from './embedder';
import { poolBlock, pooledWidth, type PoolKind } from './pooling';
import { COCO_BACKBONE_MAPS, isCocoBackboneMap, type CocoBackboneMap } from './coco-backbone';

const KINDS: readonly PoolKind[] = ['mean', 'max', 'grid2', 'halves'];

export type FeatureGroup =
  { kind: 'handmade' } | { kind: 'coco'; map: CocoBackboneMap } | { kind: PoolKind; block: string };

export function parseFeatureGroup(name: string): FeatureGroup {
  if (name === 'handmade') return { kind: 'handmade' };
  const [block, kind, ...rest] = name.split('/');
  if (block === 'bb224' && rest.length === 0 && kind !== undefined && isCocoBackboneMap(kind)) {
    return { kind: 'coco', map: kind };
  }
  if (!block || rest.length > 0 || !(KINDS as readonly string[]).includes(kind ?? '')) {
    throw new Error(`vision: unknown feature group ${name}`);
  }
  return { kind: kind as PoolKind, block };
}

/** Blocks whose maps the groups read, in first-use order. */
export function blocksOf(names: readonly string[]): string[] {
  const out: string[] = [];
  for (const g of names.map(parseFeatureGroup)) {
    if (g.kind !== 'handmade' && g.kind !== 'coco' && !out.includes(g.block)) out.push(g.block);
  }
  return out;
}

/** The COCO backbone's maps the groups read (none: the backbone is not loaded). */
export function cocoMapsOf(names: readonly string[]): CocoBackboneMap[] {
  const out: CocoBackboneMap[] = [];
  for (const g of names.map(parseFeatureGroup)) if (g.kind === 'coco' && !out.includes(g.map)) out.push(g.map);
  return out;
}

/** Width of the concatenated groups, given each block's channel count. */
export function featureWidth(names: readonly string[], channels: Readonly<Record<string, number>>): number {
  return names.map(parseFeatureGroup).reduce((a, g) => {
    if (g.kind === 'handmade') return a + HANDMADE_DIMS;
    if (g.kind === 'coco') return a + COCO_BACKBONE_MAPS[g.map].channels;
    const c = channels[g.block];
    if (c === undefined) throw new Error(`vision: no channel count for ${g.block}`);
    return a + pooledWidth(g.kind, c);
  }, 0);
}

export function featureVector(
  names: readonly string[],
  maps: Readonly<Record<string, BlockMap>>,
  pixels: RgbImage,
  coco: Partial<Record<CocoBackboneMap, Float32Array>> = {},
): Float32Array {
  const parts = names.map(parseFeatureGroup).map((g) => {
    if (g.kind === 'handmade') return handmadeFeatures(pixels);
    if (g.kind === 'coco') {
      const v = coco[g.map];
      if (!v) throw new Error(`vision: the COCO backbone's ${g.map} is missing`);
      return v;
    }
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
