import { and, count, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { lockBlobKeys } from '../../db/locks';
import { photos, photoVersions } from '../../db/schema';
import { lockOwner, referencedKeys, type PhotoCursor, type PhotoRow } from './photos.repository';

const uploadedAtText = sql<string>`${photos.uploadedAt}::text`;
/** The order (and index, photos_user_favorite_idx) of the gallery: newest upload first. */
const newestFirst = [sql`${photos.uploadedAt} desc nulls last`, sql`${photos.id} desc nulls last`];

/** SQL for deleting many photos, setting favourites and listing them (see photos-manage.service.ts). */
export function createPhotosManageRepository(db: Db) {
  return {
    /**
     * Deletes all of `ids` or none: in one transaction, the user's rows are locked and counted
     * first; if any id is missing (unknown or another user's) nothing is deleted and the answer
     * is 'missing'. Then the rows go (versions and album memberships cascade) and, under the
     * blob-key locks, every blob no remaining row references is removed, last, so a failure
     * before it leaves rows and blobs as they were.
     */
    async deleteMany(
      userId: string,
      ids: string[],
      removeBlobs: (keys: string[]) => Promise<void>,
    ): Promise<'missing' | PhotoRow[]> {
      return db.transaction(async (tx) => {
        await lockOwner(tx, userId);
        const owned = await tx
          .select({ id: photos.id })
          .from(photos)
          .where(and(eq(photos.userId, userId), inArray(photos.id, ids)))
          .for('update');
        if (owned.length !== ids.length) return 'missing';
        const versions = await tx
          .select({ o: photoVersions.originalKey, p: photoVersions.previewKey, t: photoVersions.thumbnailKey })
          .from(photoVersions)
          .where(inArray(photoVersions.photoId, ids));
        const rows = await tx
          .delete(photos)
          .where(and(eq(photos.userId, userId), inArray(photos.id, ids)))
          .returning();
        if (rows.length !== ids.length) throw new Error('photos changed during a locked delete');
        const keys = [
          // A demo photo's own blobs are the demo library every new account is given: kept.
          ...rows.flatMap((r) => (r.demoKey === null ? [r.originalKey, r.previewKey, r.thumbnailKey] : [])),
          ...versions.flatMap((v) => [v.o, v.p, v.t]),
        ];
        await lockBlobKeys(tx, keys);
        const still = await referencedKeys(tx, keys);
        await removeBlobs([...new Set(keys)].filter((key) => !still.has(key)));
        return rows;
      });
    },

    /** Sets the flag on the user's photo; false when there is no such photo of theirs. */
    async setFavorite(userId: string, id: string, favorite: boolean): Promise<boolean> {
      const rows = await db
        .update(photos)
        .set({ favorite })
        .where(and(eq(photos.userId, userId), eq(photos.id, id)))
        .returning({ id: photos.id });
      return rows.length > 0;
    },

    /** Favourites, newest first, `limit` after `cursor` (on photos_user_favorite_idx). */
    async favoritesPage(userId: string, limit: number, cursor: PhotoCursor | null) {
      const rows = await db
        .select({ photo: photos, position: uploadedAtText })
        .from(photos)
        .where(
          and(
            eq(photos.userId, userId),
            sql`${photos.favorite}`,
            cursor
              ? sql`(${photos.uploadedAt}, ${photos.id}) < (${cursor.uploadedAt}::timestamptz, ${cursor.id}::uuid)`
              : undefined,
          ),
        )
        .orderBy(...newestFirst)
        .limit(limit + 1);
      const more = rows.length > limit;
      const items = rows.slice(0, limit);
      const last = items[items.length - 1];
      return {
        items: items.map((r) => r.photo),
        next: more && last ? { uploadedAt: last.position, id: last.photo.id } : null,
      };
    },

    async favoritesCount(userId: string): Promise<number> {
      const [row] = await db
        .select({ n: count() })
        .from(photos)
        .where(and(eq(photos.userId, userId), sql`${photos.favorite}`));
      return row?.n ?? 0;
    },
  };
}
export type PhotosManageRepository = ReturnType<typeof createPhotosManageRepository>;
