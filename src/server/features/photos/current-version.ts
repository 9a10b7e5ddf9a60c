import { inArray } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { photoVersions } from '../../db/schema.js';
import type { PhotoRow } from './photos.repository.js';

/** The photo as shown: with a filter applied, its blobs are the applied version's. */
export type ShownPhotoRow = PhotoRow & { appliedFilter: { filterName: string; intensity: number } | null };

/** Filtered versions are always JPEG (see filters/filter-pipelines.ts FILTER_OUTPUT). */
const VERSION_MIME = 'image/jpeg';

/**
 * Overlays each row's current version (photos.current_version_id, set by the photo editor's
 * apply) on the row: original/preview/thumbnail keys, size and mime become the edit's, so every
 * URL and image route serves the edit while `photos.original_key` keeps the untouched original.
 * One query for the whole list.
 */
export async function withCurrentVersions(db: Db, rows: PhotoRow[]): Promise<ShownPhotoRow[]> {
  const ids = [...new Set(rows.map((r) => r.currentVersionId).filter((id): id is string => id !== null))];
  if (ids.length === 0) return rows.map((r) => ({ ...r, appliedFilter: null }));
  const versions = await db.select().from(photoVersions).where(inArray(photoVersions.id, ids));
  const byId = new Map(versions.map((v) => [v.id, v]));
  return rows.map((r) => {
    const v = r.currentVersionId ? byId.get(r.currentVersionId) : undefined;
    // A version of another photo is never shown (defensive: the id comes from the row itself).
    if (!v || v.photoId !== r.id) return { ...r, appliedFilter: null };
    return {
      ...r,
      originalKey: v.originalKey,
      previewKey: v.previewKey,
      thumbnailKey: v.thumbnailKey,
      size: v.size,
      mime: VERSION_MIME,
      appliedFilter: { filterName: v.filterName, intensity: v.intensity },
    };
  });
}

export async function withCurrentVersion(db: Db, row: PhotoRow): Promise<ShownPhotoRow> {
  const [shown] = await withCurrentVersions(db, [row]);
  return shown!;
}
