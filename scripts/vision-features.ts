/**
 * Runs the models once over every labelled photo (and the demo library) and caches what the
 * classifier is trained and scored on, so that choosing it takes seconds instead of minutes:
 *   - pooled InceptionV3 blocks mixed8, mixed9 and mixed10 (square-rooted, concatenated) for the
 *     photo as the engine sees it and for augmented views of it (mirrored; a centre crop; left and
 *     right crops; the largest centred square; the photo padded to a square; a cut-out's subject box),
 *     all scaled to the embedding input like decodeForModels does;
 *   - the detectors' objects and faces on the photo as the engine sees it.
 * Run: npx tsx scripts/vision-features.ts [outDir=/tmp/eyevu-vision-features]
 * Heavy (a few minutes on one core): run it alone.
 */
import { mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { projectRoot } from '../src/server/lib/paths.js';
import {
  EMBEDDING_INPUT,
  decodeForModels,
  ensureTfWasm,
  loadDetector,
  loadEmbedder,
  splitPart,
  type Detections,
  type RgbImage,
} from '../src/server/features/analysis/index';
import { subjectInput } from './lib/subject-box';
import { loadFeatureCache, writeFeatureCache } from './lib/cross-validation';
import { PHOTO_CATEGORIES, isPhotoCategory, type PhotoCategory } from '../src/domain/photo-categories';

/** Blocks cached per backbone (the ReLU outputs: square-rooting needs non-negative values). */
export const FEATURE_LAYERS: Record<string, readonly string[]> = {
  inception_v3: ['mixed8', 'mixed9', 'mixed10'],
  mobilenet_v2: ['block_13_expand_relu', 'block_16_expand_relu', 'out_relu'],
};
/**
 * `subject`: the cut-out's subject as the engine would crop it (subjectInput); only photos that
 * count as cut-outs get a row (the others would embed the whole photo, row `orig`).
 */
export const VIEWS = ['orig', 'flip', 'centre', 'left', 'right', 'subject', 'square', 'pad'] as const;

export interface FeatureEntry {
  file: string;
  category: PhotoCategory;
  set: 'tune' | 'test' | 'demo';
  /** Row of each view in emb.f32 (views missing for demo photos). */
  rows: Partial<Record<(typeof VIEWS)[number], number>>;
  detections: Detections;
}

export interface FeatureIndex {
  /** nsfwjs backbone the vectors come from (inception_v3 when absent: older caches). */
  model?: string;
  layers: string[];
  /** Embedding input side the vectors were computed at (224 when absent: older caches). */
  inputSize?: number;
  dims: number[];
  entries: FeatureEntry[];
}

async function toEmbedInput(rgb: RgbImage, view: (typeof VIEWS)[number], size: number): Promise<RgbImage> {
  let img = sharp(Buffer.from(rgb.data), { raw: { width: rgb.width, height: rgb.height, channels: 3 } });
  const { width: W, height: H } = rgb;
  if (view === 'flip') img = img.flop();
  const crop = (x: number, y: number, w: number, h: number) => {
    const left = Math.round(x * W);
    const top = Math.round(y * H);
    return img.extract({
      left,
      top,
      width: Math.max(1, Math.min(Math.round(w * W), W - left)),
      height: Math.max(1, Math.min(Math.round(h * H), H - top)),
    });
  };
  if (view === 'centre') img = crop(0.1, 0.1, 0.8, 0.8);
  // `square`: the largest centred square (aspect kept, the long side's ends cut); `pad`: the whole
  // photo, aspect kept, padded with mid grey to a square (instead of the engine's squash).
  if (view === 'square') {
    const s = Math.min(W, H);
    img = img.extract({ left: Math.floor((W - s) / 2), top: Math.floor((H - s) / 2), width: s, height: s });
  }
  if (view === 'pad') {
    const out = await img
      .resize(size, size, { fit: 'contain', background: { r: 128, g: 128, b: 128 } })
      .raw()
      .toBuffer();
    return { data: new Uint8Array(out.buffer, out.byteOffset, out.length), width: size, height: size };
  }
  if (view === 'left') img = crop(0, 0.05, 0.85, 0.9);
  if (view === 'right') img = crop(0.15, 0.05, 0.85, 0.9);
  const out = await img.resize(size, size, { fit: 'fill' }).raw().toBuffer();
  return {
    data: new Uint8Array(out.buffer, out.byteOffset, out.length),
    width: size,
    height: size,
  };
}

/** The engine's own embedding input, mirrored left to right (what test-time augmentation would embed). */
export function mirror(img: RgbImage): RgbImage {
  const { width: w, height: h, data } = img;
  const out = new Uint8Array(data.length);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const s = (y * w + x) * 3;
      const d = (y * w + (w - 1 - x)) * 3;
      out[d] = data[s];
      out[d + 1] = data[s + 1];
      out[d + 2] = data[s + 2];
    }
  }
  return { data: out, width: w, height: h };
}

export async function labelled(): Promise<{ file: string; category: PhotoCategory; set: FeatureEntry['set'] }[]> {
  const out: { file: string; category: PhotoCategory; set: FeatureEntry['set'] }[] = [];
  for (const category of PHOTO_CATEGORIES) {
    const dir = path.join(projectRoot, 'assets', 'reference-photos', category);
    for (const f of (await readdir(dir)).filter((x) => /\.(jpe?g|png|webp)$/i.test(x)).sort()) {
      out.push({ file: path.join('assets', 'reference-photos', category, f), category, set: splitPart(f) });
    }
  }
  const manifest = JSON.parse(
    await readFile(path.join(projectRoot, 'assets', 'demo-photos', 'manifest.json'), 'utf8'),
  ) as {
    file: string;
    expectedCategory: unknown;
  }[];
  for (const m of manifest) {
    if (isPhotoCategory(m.expectedCategory)) {
      out.push({ file: path.join('assets', 'demo-photos', m.file), category: m.expectedCategory, set: 'demo' });
    }
  }
  return out;
}

async function main(): Promise<void> {
  const outDir = process.argv[2] ?? '/tmp/eyevu-vision-features';
  // VISION_INPUT: embedding input side (default the engine's); VISION_VIEWS=orig: no augmented views;
  // VISION_REUSE=<dir>: take vectors (same input side and views) and detections of photos already there.
  const size = Number(process.env.VISION_INPUT ?? EMBEDDING_INPUT);
  const model = process.env.VISION_MODEL ?? 'inception_v3';
  const layers = FEATURE_LAYERS[model];
  if (!layers) throw new Error(`no feature layers known for ${model}`);
  // VISION_VIEWS=orig or a list (orig,flip): those views for every photo, the demo library's too
  // (test-time augmentation is scored on them); unset: every view, the original only for the demo library.
  const viewList = process.env.VISION_VIEWS?.split(',').filter((v): v is (typeof VIEWS)[number] =>
    (VIEWS as readonly string[]).includes(v),
  );
  const reuseDir = process.env.VISION_REUSE;
  const reuse = reuseDir ? await loadFeatureCache<FeatureIndex>(reuseDir) : undefined;
  await mkdir(outDir, { recursive: true });
  await ensureTfWasm();
  const embedder = await loadEmbedder(undefined, layers, size, model);
  let detector: Awaited<ReturnType<typeof loadDetector>> | undefined;
  // VISION_PARTS=tune,demo: only those parts (choosing never needs the test part's features).
  const parts = process.env.VISION_PARTS?.split(',');
  const photos = (await labelled()).filter((p) => !parts || parts.includes(p.set));
  const vectors: Float32Array[] = [];
  const entries: FeatureEntry[] = [];
  const t0 = performance.now();
  for (const [i, p] of photos.entries()) {
    const old = reuse?.index.entries.find((e) => e.file === p.file);
    const views = viewList ?? (p.set === 'demo' ? (['orig'] as const) : VIEWS);
    const rows: FeatureEntry['rows'] = {};
    const sameVectors =
      old && reuse && (reuse.index.inputSize ?? 224) === size && (reuse.index.model ?? 'inception_v3') === model;
    let decoded: Awaited<ReturnType<typeof decodeForModels>> | undefined;
    for (const view of views) {
      const oldRow = old?.rows[view];
      if (sameVectors && oldRow !== undefined) {
        rows[view] = vectors.length;
        vectors.push(reuse!.all.slice(oldRow * embedder.dims, (oldRow + 1) * embedder.dims));
        continue;
      }
      decoded ??= await decodeForModels(await readFile(path.join(projectRoot, p.file)), size);
      if (view === 'subject') {
        const sub = await subjectInput(decoded.detect, size);
        if (sub) {
          rows[view] = vectors.length;
          vectors.push(await embedder.embed(sub));
        }
        continue;
      }
      rows[view] = vectors.length;
      vectors.push(
        await embedder.embed(
          view === 'orig'
            ? decoded.embed
            : view === 'flip'
              ? mirror(decoded.embed)
              : await toEmbedInput(decoded.detect, view, size),
        ),
      );
    }
    let detections = old?.detections;
    if (!detections) {
      decoded ??= await decodeForModels(await readFile(path.join(projectRoot, p.file)), size);
      detector ??= await loadDetector();
      detections = await detector.detect(decoded.detect);
    }
    entries.push({ ...p, rows, detections });
    if (i % 25 === 0) console.log(`${i}/${photos.length} ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
  const dims = embedder.dims;
  // Per-layer widths, so a reader can slice any combination of blocks out of a row.
  const index: FeatureIndex = { model, layers: [...layers], dims: [...embedder.layerDims], inputSize: size, entries };
  await writeFeatureCache(outDir, vectors, dims, index);
  console.log(`${entries.length} photos, ${vectors.length} views, ${dims} values each -> ${outDir}`);
}

if (process.argv[1]?.endsWith('vision-features.ts')) await main();
