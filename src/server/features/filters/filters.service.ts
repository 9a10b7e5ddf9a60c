import { createHash } from 'node:crypto';
import { FILTER_IDS, type FilterId } from '@domain/filters';
import type { FilterOption, FilterRenderSize, FilterRequest } from '@contract/filters';
import type { Photo } from '@contract/photos';
import { AppError, conflict, notFound } from '../../http/errors';
import type { BlobStore } from '../../storage/blob-store';
import { RenderCache } from '../../lib/render-cache';
import {
  DEFAULT_MAX_PIXELS,
  decodeRefusal,
  EDITOR_DEMO_KEY,
  PREVIEW_SIZE,
  removeOrLeaveToSweep,
  THUMBNAIL_SIZE,
  toPhoto,
  type PhotoRow,
  type StorageCheck,
} from '../photos/index';
import type { ApplyOutput } from './apply-render';
import { applyFilter, decodeForFilters, type RawRgb } from './filter-pipelines';
import type { FilterPool } from './filter-pool';
import type { FiltersRepository } from './filters.repository';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const VERSION_CHARS = 16;
/** Long side of each rendition: swatches for the picker, previews for the editor (430 px frame at 2.5x). */
export const RENDER_SIZES: Record<FilterRenderSize, number> = { swatch: 160, preview: 1080 };
/** Bump when the filter recipes change, so ETags of earlier renders stop matching. */
const RENDER_REVISION = 1;
export const DEFAULT_RENDER_CACHE_BYTES = 64 * 1024 * 1024;
/** Decoded sources (~2.6 MB each at 1080 px): switching filter or intensity skips the decode. */
export const DEFAULT_SOURCE_CACHE_BYTES = 48 * 1024 * 1024;

export interface Rendered {
  bytes: Buffer;
  etag: string;
  /** The source blob's hash prefix carried in the URL as `v`. */
  version: string;
  hit: boolean;
}

export const APPLY_BUSY_MESSAGE = 'A filter is already being applied to your photos. Please wait for it to finish.';

export function createFiltersService(deps: {
  repo: FiltersRepository;
  blobs: BlobStore;
  /** Renders applies off the event loop. */
  pool: FilterPool;
  /**
   * Refuses (throws) when storing `addBytes` more would pass the user's storage quota;
   * `freedBytes` are the versions the new one replaces.
   */
  checkQuota?: StorageCheck;
  cacheBytes?: number;
  /** A dropped version's file the store failed to remove (left to the orphan sweep). */
  log?: (msg: string, err?: unknown) => void;
}) {
  const { repo, blobs, pool } = deps;
  /** Users with an apply in flight in this process: one at a time each. */
  const applying = new Set<string>();
  const cache = new RenderCache(deps.cacheBytes ?? DEFAULT_RENDER_CACHE_BYTES);
  const sources = new RenderCache<RawRgb>(DEFAULT_SOURCE_CACHE_BYTES, (r) => r.data.length);

  /**
   * A file of a photo found a moment ago: gone when the owner deleted the photo since (its files
   * with it), which is the photo not found, not a 500.
   */
  async function readFile(key: string): Promise<Buffer> {
    try {
      return await blobs.read(key);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw notFound('Photo not found.');
      throw err;
    }
  }

  /** `scope` as in `cacheKey`: a decode another account made would answer this one's render sooner. */
  async function decoded(key: string, maxSize: number, scope: string): Promise<RawRgb> {
    return (
      await sources.get(`${key}:${maxSize}:${scope}`, async () => decodeForFilters(await readFile(key), { maxSize }))
    ).bytes;
  }

  /** The user's photo as stored ('demo' is their editor demo photo); anyone else's is a 404. */
  async function resolve(userId: string, id: string): Promise<PhotoRow> {
    const row =
      id === 'demo'
        ? await repo.findByDemoKey(userId, EDITOR_DEMO_KEY)
        : UUID.test(id)
          ? await repo.findOwned(userId, id)
          : undefined;
    if (!row) throw notFound('Photo not found.');
    return row;
  }

  /**
   * Renditions always start from the untouched original's derivatives (an edit is never
   * stacked on an earlier edit), so what the editor previews is what apply produces.
   */
  function sourceKey(row: PhotoRow, size: FilterRenderSize) {
    return size === 'swatch' ? row.thumbnailKey : row.previewKey;
  }

  /**
   * Per owner: blobs are stored by content, so two accounts holding the same file share `source`,
   * and a shared render (answered at once, marked a hit) told one account that another has that
   * photo and has just tried that filter on it. The demo library's photos are everyone's, and
   * their renders are shared.
   */
  const scopeOf = (row: PhotoRow) => (row.demoKey ? 'demo' : row.userId);
  function cacheKey(row: PhotoRow, filter: FilterId, intensity: number, size: FilterRenderSize) {
    const scope = scopeOf(row);
    return `${RENDER_REVISION}:${sourceKey(row, size)}:${filter}:${intensity}:${size}:${scope}`;
  }

  function etagOf(key: string) {
    return `"f${createHash('sha256').update(key).digest('hex').slice(0, 32)}"`;
  }

  function renderUrl(row: PhotoRow, filter: FilterId, intensity: number, size: FilterRenderSize) {
    const qs = new URLSearchParams({
      photoId: row.id,
      filterName: filter,
      intensity: String(intensity),
      size,
      v: sourceKey(row, size).slice(0, VERSION_CHARS),
    });
    return `/api/photo-filters/render?${qs}`;
  }

  async function render(row: PhotoRow, filter: FilterId, intensity: number, size: FilterRenderSize) {
    const source = sourceKey(row, size);
    const key = cacheKey(row, filter, intensity, size);
    const { bytes, hit } = await cache.get(key, async () =>
      applyFilter(await decoded(source, RENDER_SIZES[size], scopeOf(row)), filter, intensity),
    );
    return { bytes, hit, etag: etagOf(key), version: source.slice(0, VERSION_CHARS) };
  }

  /**
   * Renders the original (EXIF-oriented, long side at most APPLY_MAX_SIZE) with the filter in a
   * filter thread, stores it with its own preview and thumbnail as a new version and makes it the
   * one shown. The original blob is never touched. Nothing is written unless the render succeeded
   * and the version fits the storage quota.
   */
  async function applyNow(userId: string, req: FilterRequest): Promise<Photo> {
    const row = await resolve(userId, req.photoId);
    const out: ApplyOutput = await pool.apply(async () => ({
      original: await decodable(await readFile(row.originalKey)),
      preview: await readFile(row.previewKey),
      filter: req.filterName,
      intensity: req.intensity,
      previewSize: PREVIEW_SIZE,
      thumbnailSize: THUMBNAIL_SIZE,
      maxInputPixels: DEFAULT_MAX_PIXELS,
    }));
    const full = Buffer.from(out.full.buffer, out.full.byteOffset, out.full.byteLength);
    const preview = Buffer.from(out.preview.buffer, out.preview.byteOffset, out.preview.byteLength);
    const thumbnail = Buffer.from(out.thumbnail.buffer, out.thumbnail.byteOffset, out.thumbnail.byteLength);
    const allowance = await deps.checkQuota?.(userId, full.length, await repo.versionBytes(row.id));
    const put = () => Promise.all([blobs.put(full), blobs.put(preview), blobs.put(thumbnail)]);
    const [originalKey, previewKey, thumbnailKey] = await put();
    const updated = await repo.insertCurrentVersion(
      userId,
      row.id,
      {
        filterName: req.filterName,
        intensity: req.intensity,
        originalKey,
        previewKey,
        thumbnailKey,
        size: full.length,
      },
      async () => {
        const present = await Promise.all([originalKey, previewKey, thumbnailKey].map((k) => blobs.has(k)));
        if (present.includes(false)) await put();
      },
      allowance?.quotaBytes,
    );
    // Refused (the photo deleted meanwhile, or an upload landed since the quota check above): the
    // files just written are removed now, as a dropped version's are, unless another row uses them.
    if (!updated || 'full' in updated) await release([originalKey, previewKey, thumbnailKey]);
    if (!updated) throw notFound('Photo not found.');
    if ('full' in updated) throw allowance!.full(updated.full);
    lastApply = { threadId: out.threadId, pixelPasses: out.pixelPasses };
    await release(updated.dropped);
    return shown(updated.row);
  }

  /**
   * Removes the files of versions an apply or revert has just dropped, once that is committed (and
   * those of an apply refused after writing them). The
   * quota stops counting a version when it goes, so its multi-megabyte JPEG left to the orphan
   * sweep (every 6 hours) let one account's applies (30 per 5 minutes) store gigabytes outside it.
   * A file another row still uses (the same edit of a shared file: the demo photo's, or another
   * version made since) is kept: the sweep's check, under the same blob-key locks that writers
   * take before they put back any file found missing. A store that fails leaves it to the sweep.
   */
  async function release(keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    // The blob-key locks are held meanwhile: a silent store gets BLOB_REMOVAL_DEADLINE_MS in all
    // (removeOrLeaveToSweep's bound).
    await repo
      .deleteIfUnreferenced([...new Set(keys)], removeOrLeaveToSweep(blobs, deps.log ?? (() => undefined)))
      .catch((err: unknown) => deps.log?.('files of a dropped version left to the orphan sweep', err));
  }

  let lastApply: { threadId: number; pixelPasses: number } | null = null;

  /**
   * An original the upload checks refuse today (a JPEG whose decode costs far more than its size,
   * `jpegDecodeRefusal`, or an image whose decoder holds its whole frame, `wholeFrameRefusal`) may
   * have been stored before them: the one filter thread every user shares would spend many seconds
   * or gigabytes on it, so the apply is refused instead.
   */
  async function decodable(original: Buffer): Promise<Buffer> {
    const refusal = await decodeRefusal(original);
    if (refusal) throw new AppError(422, refusal, 'unprocessable');
    return original;
  }

  async function shown(row: PhotoRow): Promise<Photo> {
    return toPhoto(await repo.shown(row));
  }

  return {
    cacheStats: () => ({ hits: cache.hits, misses: cache.misses, bytes: cache.size }),
    /** Where the last apply was rendered (thread id, 0 = main) and its per-pixel passes there. */
    lastApply: () => lastApply,

    /** The six filters with a swatch URL each (rendered lazily when the browser loads it). */
    async available(userId: string, photoId = 'demo', intensity = 100): Promise<FilterOption[]> {
      const row = await resolve(userId, photoId);
      return FILTER_IDS.map((id) => ({ id, previewUrl: renderUrl(row, id, intensity, 'swatch') }));
    },

    /** ETag without rendering, so a browser's conditional request costs no image work. */
    async renderTag(userId: string, photoId: string, filter: FilterId, intensity: number, size: FilterRenderSize) {
      const row = await resolve(userId, photoId);
      const source = sourceKey(row, size);
      return { etag: etagOf(cacheKey(row, filter, intensity, size)), version: source.slice(0, VERSION_CHARS) };
    },

    async render(
      userId: string,
      photoId: string,
      filter: FilterId,
      intensity: number,
      size: FilterRenderSize,
    ): Promise<Rendered> {
      return render(await resolve(userId, photoId), filter, intensity, size);
    },

    /** Renders the preview now (so loading its URL is instant) and answers where it is. */
    async preview(userId: string, req: FilterRequest): Promise<{ previewUrl: string; hit: boolean }> {
      const row = await resolve(userId, req.photoId);
      const { hit } = await render(row, req.filterName, req.intensity, 'preview');
      return { previewUrl: renderUrl(row, req.filterName, req.intensity, 'preview'), hit };
    },

    /**
     * Renders the full-size original (EXIF-oriented) with the filter, stores it with its own
     * preview and thumbnail as a new version and makes it the one shown. The original blob is
     * never touched. Nothing is written unless the render succeeded.
     */
    async apply(userId: string, req: FilterRequest): Promise<Photo> {
      // Claimed before any await, so two requests of one user can never both pass.
      if (applying.has(userId)) throw conflict(APPLY_BUSY_MESSAGE);
      applying.add(userId);
      try {
        return await applyNow(userId, req);
      } finally {
        applying.delete(userId);
      }
    },

    /** Shows the original again. Harmless when nothing was applied. */
    async revert(userId: string, photoId: string): Promise<Photo> {
      const row = await resolve(userId, photoId);
      const updated = await repo.revert(userId, row.id);
      if (!updated) throw notFound('Photo not found.');
      await release(updated.dropped);
      return shown(updated.row);
    },
  };
}
export type FiltersService = ReturnType<typeof createFiltersService>;
