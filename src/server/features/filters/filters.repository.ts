import { and, eq, ne, sum } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { photos, photoVersions } from '../../db/schema';
import { lockBlobKeys } from '../../db/locks';
import { createPhotosRepository, lockOwner, usedBytes, type PhotoRow } from '../photos/index';

export type PhotoVersionRow = typeof photoVersions.$inferSelect;
export interface NewVersion {
  filterName: string;
  intensity: number;
  originalKey: string;
  previewKey: string;
  thumbnailKey: string;
  size: number;
}

/** A write that made a photo's versions go: the row, and the files those versions used. */
export interface VersionsDropped {
  row: PhotoRow;
  /** Blob keys of the versions dropped (possibly still used by another row: check before removing). */
  dropped: string[];
}

const versionKeys = { o: photoVersions.originalKey, p: photoVersions.previewKey, t: photoVersions.thumbnailKey };
const keysOf = (rows: Array<{ o: string; p: string; t: string }>) => rows.flatMap((r) => [r.o, r.p, r.t]);

export function createFiltersRepository(db: Db) {
  const photosRepo = createPhotosRepository(db);
  return {
    /** The user's photo by id, or their editor demo photo; the row as stored (original keys). */
    findOwned: photosRepo.find,
    findByDemoKey: photosRepo.findByDemoKey,
    storageUsed: photosRepo.storageUsed,
    /** The row as shown, with its current version overlaid. */
    shown: photosRepo.withCurrentVersion,
    /** Removes those of these blobs that no row references, under their blob-key locks (the orphan sweep's check). */
    deleteIfUnreferenced: photosRepo.deleteIfUnreferenced,

    /** Bytes of the photo's stored versions (what a new apply replaces). */
    async versionBytes(photoId: string): Promise<number> {
      const [row] = await db
        .select({ n: sum(photoVersions.size) })
        .from(photoVersions)
        .where(eq(photoVersions.photoId, photoId));
      return Number(row?.n ?? 0);
    },

    /**
     * Records a filtered version and makes it the one shown, in one transaction: the photo row is
     * locked (and must still be the user's), earlier versions are dropped (each edit is rendered
     * from the untouched original, so they are never needed again; their blobs go to the orphan
     * sweep), and `ensureBlobs` re-writes any blob a concurrent delete removed. With `quotaBytes`,
     * the stored bytes are counted under the owner's lock (uploads take it too) and the version
     * is not written if it would pass them. Returns the updated photo row with the dropped
     * versions' files, null if the photo is gone, or the bytes stored when the quota refused it.
     */
    async insertCurrentVersion(
      userId: string,
      photoId: string,
      v: NewVersion,
      ensureBlobs: () => Promise<void>,
      quotaBytes?: number,
    ): Promise<VersionsDropped | null | { full: number }> {
      return db.transaction(async (tx) => {
        await lockOwner(tx, userId);
        const [locked] = await tx
          .select({ id: photos.id })
          .from(photos)
          .where(and(eq(photos.userId, userId), eq(photos.id, photoId)))
          .for('update');
        if (!locked) return null;
        if (quotaBytes !== undefined) {
          const [used, [replaced]] = await Promise.all([
            usedBytes(tx, userId),
            tx
              .select({ n: sum(photoVersions.size) })
              .from(photoVersions)
              .where(eq(photoVersions.photoId, photoId)),
          ]);
          if (used - Number(replaced?.n ?? 0) + v.size > quotaBytes) return { full: used };
        }
        await lockBlobKeys(tx, [v.originalKey, v.previewKey, v.thumbnailKey]);
        const [version] = await tx
          .insert(photoVersions)
          .values({ photoId, ...v })
          .returning({ id: photoVersions.id });
        if (!version) throw new Error('photo version insert returned no row');
        const dropped = await tx
          .delete(photoVersions)
          .where(and(eq(photoVersions.photoId, photoId), ne(photoVersions.id, version.id)))
          .returning(versionKeys);
        const [row] = await tx
          .update(photos)
          .set({ currentVersionId: version.id })
          .where(eq(photos.id, photoId))
          .returning();
        await ensureBlobs();
        return row ? { row, dropped: keysOf(dropped) } : null;
      });
    },

    /**
     * Shows the original again and drops the photo's versions. Returns the row with the dropped
     * versions' files, or null if not the user's.
     */
    async revert(userId: string, photoId: string): Promise<VersionsDropped | null> {
      return db.transaction(async (tx) => {
        const [row] = await tx
          .update(photos)
          .set({ currentVersionId: null })
          .where(and(eq(photos.userId, userId), eq(photos.id, photoId)))
          .returning();
        if (!row) return null;
        const dropped = await tx.delete(photoVersions).where(eq(photoVersions.photoId, photoId)).returning(versionKeys);
        return { row, dropped: keysOf(dropped) };
      });
    },
  };
}
export type FiltersRepository = ReturnType<typeof createFiltersRepository>;
