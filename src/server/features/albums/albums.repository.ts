import { and, count, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client';
import type { Tx } from '../../db/locks';
import { albumPhotos, albums, photos } from '../../db/schema';
import { lockOwner } from '../photos/index';
import { PHOTO_CATEGORIES, type PhotoCategory } from '@domain/photo-categories';

export type AlbumRow = typeof albums.$inferSelect;

/** Smart album titles; 'people' also takes every photo with a detected face (the People album). */
export const SMART_ALBUM_NAMES: Record<PhotoCategory, string> = {
  people: 'People',
  animals: 'Animals',
  food_drink: 'Food & Drink',
  nature_landscape: 'Nature & Landscape',
  vehicles_transport: 'Vehicles & Transport',
  city_architecture: 'City & Architecture',
};

/** Albums a user makes (smart ones and Favorites come on top: at most 7). */
export const MANUAL_ALBUMS_MAX = 190;

const photoWord = (n: number) => (n === 1 ? '1 photo' : `${n} photos`);
/** A smart album's description, from its count when listed (never stored: it changed with every photo). */
export const smartAlbumDescription = (n: number) => `Smart album with ${photoWord(n)}`;

/**
 * `syncSmartAlbums` inside the caller's transaction: an analysis result is written with its
 * memberships, so no reader sees the photo analysed while its smart album is not there yet.
 */
export async function syncSmartAlbumsIn(tx: Tx, userId: string, photoIds?: readonly string[]): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${'smart-albums:' + userId}, 0))`);
  const ids = photoIds ? sql.param([...photoIds]) : null;
  const onlyPhotos = ids ? sql`and p.id = any(${ids}::uuid[])` : sql``;
  const onlyHeld = ids ? sql`and ap.photo_id = any(${ids}::uuid[])` : sql``;
  const belongs = sql`(p.category = a.smart_key or (a.smart_key = 'people' and coalesce(p.face_count, 0) > 0))`;
  const keys = sql.join(
    PHOTO_CATEGORIES.map((key) => sql`(${key}, ${SMART_ALBUM_NAMES[key]})`),
    sql`, `,
  );
  // The albums these photos call for (the unique (user, smart key) index keeps one each).
  await tx.execute(sql`
      insert into ${albums} (user_id, name, description, is_smart_album, smart_key)
      select ${userId}::uuid, k.name, '', true, k.key from (values ${keys}) as k(key, name)
      where exists (select 1 from ${photos} p where p.user_id = ${userId} and p.analyzed ${onlyPhotos}
        and (p.category = k.key or (k.key = 'people' and coalesce(p.face_count, 0) > 0)))
      on conflict (user_id, smart_key) do nothing`);
  // Set differences (EXCEPT hashes or sorts both sides): an anti-join left to the planner
  // went nested-loop on fresh statistics, 24 s for a 30,000-photo album. Both statements of
  // the one query see the same snapshot, and write disjoint rows.
  await tx.execute(sql`
      with want as materialized (
        select a.id as album_id, p.id as photo_id
        from ${photos} p join ${albums} a on a.user_id = p.user_id and a.is_smart_album and ${belongs}
        where p.user_id = ${userId} and p.analyzed ${onlyPhotos}
      ), held as materialized (
        select ap.album_id, ap.photo_id
        from ${albumPhotos} ap join ${albums} a on a.id = ap.album_id
        where a.user_id = ${userId} and a.is_smart_album ${onlyHeld}
      ), gone as (
        delete from ${albumPhotos} ap using (select * from held except select * from want) g
        where ap.album_id = g.album_id and ap.photo_id = g.photo_id
      )
      insert into ${albumPhotos} (album_id, photo_id)
      select album_id, photo_id from want except select album_id, photo_id from held`);
  // Albums left empty go (one index probe each: at most the cap and seven). A user's own
  // album too, once its photos were all deleted: it could be neither opened nor deleted,
  // and kept its place under the cap for ever. One being made is not seen here: its
  // photos are written in the transaction that makes it.
  await tx.execute(sql`
      delete from ${albums} a where a.user_id = ${userId}
      and not exists (select 1 from ${albumPhotos} ap where ap.album_id = a.id)`);
}

/** Photos the smart-album repair reads per statement (by primary key, from where the last stopped). */
export const SMART_REPAIR_BATCH = 500;

/** One stretch of the repair's walk: the last photo id read (null: the walk is over) and the photos out of step. */
export interface OutOfStep {
  /** Photos read. */
  read: number;
  last: string | null;
  photos: Array<{ id: string; userId: string }>;
}

/** A creation's `Idempotency-Key` and the hash of what it asked for. */
export interface OnceKey {
  key: string;
  requestHash: string;
}

/** An album as listed, its photos counted now (a description that counts them is written from it). */
const listedColumns = {
  id: albums.id,
  name: albums.name,
  description: albums.description,
  isSmartAlbum: albums.isSmartAlbum,
  createdAt: albums.createdAt,
  photoCount: sql<number>`(select count(*)::int from ${albumPhotos} where ${albumPhotos.albumId} = ${albums.id})`,
};

/** The user's album made under `key` (zero or one row: unique per user), with its photos counted now. */
function madeUnder(q: Db | Tx, userId: string, key: string) {
  return q
    .select({ ...listedColumns, requestHash: albums.requestHash })
    .from(albums)
    .where(and(eq(albums.userId, userId), eq(albums.idempotencyKey, key)));
}

type MadeUnder = Awaited<ReturnType<typeof madeUnder>>[number];

export function createAlbumsRepository(db: Db) {
  return {
    /**
     * Brings the user's smart albums in step with their analysed photos: one per category that
     * has any, People also holding photos with faces; an album left empty (photos deleted or
     * re-analysed) is removed. With `photoIds`, only those photos' memberships are looked at (an
     * analysis result: a few rows, whatever the library's size; `[]` after a delete, whose
     * memberships went with the photo); without, every analysed photo's. Every album of the user
     * left without photos goes, the user's own included. Serialised per user.
     *
     * Done in the database: photo ids never travel to this thread (a 30,000-photo category made a
     * quadratic copy here, and one insert of 60,000 parameters passed PostgreSQL's 65,535 at 32,768
     * photos); a rebuild of the whole library read it about fourteen times, ~400-480 ms at 100,000
     * photos on PGlite, once per analysis batch. The album's description is counted when listed.
     */
    async syncSmartAlbums(userId: string, photoIds?: readonly string[]): Promise<void> {
      await db.transaction((tx) => syncSmartAlbumsIn(tx, userId, photoIds));
    },

    /**
     * The next `limit` photos of every account after `after` (by id), and those of them out of step
     * with their smart albums: analysed and missing from their category's album or, with a face,
     * from People; or held by a smart album they do not belong to. One index range and a few probes
     * per photo: a statement costs the same wherever the walk is, and holds no lock.
     */
    async outOfStep(after: string | null, limit = SMART_REPAIR_BATCH): Promise<OutOfStep> {
      const keys = sql.param([...PHOTO_CATEGORIES]);
      const heldIn = (key: SQL) => sql`exists (select 1 from ${albums} a
          join ${albumPhotos} ap on ap.album_id = a.id and ap.photo_id = b.id
          where a.user_id = b.user_id and a.is_smart_album and a.smart_key = ${key})`;
      const res = await db.execute(sql`
        with b as materialized (
          select p.id, p.user_id, p.analyzed, p.category, coalesce(p.face_count, 0) > 0 as has_face
          from ${photos} p ${after ? sql`where p.id > ${after}::uuid` : sql``}
          order by p.id limit ${limit}
        )
        select b.id, b.user_id,
          (b.analyzed and b.category = any(${keys}::text[]) and not ${heldIn(sql`b.category`)})
          or (b.analyzed and b.has_face and not ${heldIn(sql`'people'`)})
          or exists (select 1 from ${albumPhotos} ap join ${albums} a on a.id = ap.album_id
            where ap.photo_id = b.id and a.is_smart_album
              and not (b.analyzed and (a.smart_key = b.category or (a.smart_key = 'people' and b.has_face))))
          as out_of_step
        from b order by b.id`);
      const rows = (res as unknown as { rows: Array<{ id: string; user_id: string; out_of_step: boolean }> }).rows;
      return {
        read: rows.length,
        last: rows.length < limit ? null : rows[rows.length - 1]!.id,
        photos: rows.filter((r) => r.out_of_step).map((r) => ({ id: r.id, userId: r.user_id })),
      };
    },

    /**
     * `syncSmartAlbums` for these photos of the user, after the user's lock, which every delete
     * takes first: a membership written for a photo whose delete was committing failed its foreign
     * key check on PostgreSQL. Nothing else holding that lock waits for the smart-album lock.
     */
    async repairSmartAlbums(userId: string, photoIds: readonly string[]): Promise<void> {
      await db.transaction(async (tx) => {
        await lockOwner(tx, userId);
        await syncSmartAlbumsIn(tx, userId, photoIds);
      });
    },

    async list(userId: string, limit: number) {
      return db
        .select(listedColumns)
        .from(albums)
        .where(eq(albums.userId, userId))
        .orderBy(desc(albums.isSmartAlbum), albums.name, albums.createdAt)
        .limit(limit);
    },

    /** The user's favourite photos (the Favorites album's size). */
    async favoritesCount(userId: string): Promise<number> {
      const [r] = await db
        .select({ n: count() })
        .from(photos)
        .where(and(eq(photos.userId, userId), eq(photos.favorite, true)));
      return r?.n ?? 0;
    },

    /** How many of `ids` the user owns (unknown and foreign ids are not counted). */
    async countOwned(userId: string, ids: string[]): Promise<number> {
      if (ids.length === 0) return 0;
      const [r] = await db
        .select({ n: count() })
        .from(photos)
        .where(and(eq(photos.userId, userId), inArray(photos.id, ids)));
      return r?.n ?? 0;
    },

    /**
     * The album and its photos in one transaction, or null (nothing written) when any of
     * `photoIds` is not the user's at that moment: the rows are locked (FOR KEY SHARE) so a delete
     * waits for the album instead of removing a photo between the check and the insert. 'limit'
     * (nothing written) when the user has MANUAL_ALBUMS_MAX albums already, counted under the
     * user's album lock so racing creations cannot both pass the last place.
     */
    async createManual(userId: string, name: string, description: string, photoIds: string[], once?: OnceKey) {
      return db.transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${'albums:' + userId}, 0))`);
        // Under the lock: a retry racing its first request waits for it and finds its album.
        if (once) {
          const first: MadeUnder | undefined = (await madeUnder(tx, userId, once.key))[0];
          if (first) return first.requestHash === once.requestHash ? { replay: first } : ('key reused' as const);
        }
        const [made] = await tx
          .select({ n: count() })
          .from(albums)
          .where(and(eq(albums.userId, userId), eq(albums.isSmartAlbum, false)));
        if ((made?.n ?? 0) >= MANUAL_ALBUMS_MAX) return 'limit' as const;
        const owned = await tx
          .select({ id: photos.id })
          .from(photos)
          .where(and(eq(photos.userId, userId), inArray(photos.id, photoIds)))
          .for('key share');
        if (owned.length !== photoIds.length) return null;
        const [a] = await tx
          .insert(albums)
          .values({
            userId,
            name,
            description,
            isSmartAlbum: false,
            idempotencyKey: once?.key,
            requestHash: once?.requestHash,
          })
          .returning();
        await tx.insert(albumPhotos).values(photoIds.map((photoId) => ({ albumId: a.id, photoId })));
        await tx
          .update(photos)
          .set({ albumId: a.id })
          .where(and(eq(photos.userId, userId), inArray(photos.id, photoIds)));
        return { ...a, photoCount: photoIds.length };
      });
    },

    /** The album the user made under this `Idempotency-Key`, as listed, with what it was asked for. */
    async madeUnder(userId: string, key: string) {
      const [first] = await madeUnder(db, userId, key);
      return first;
    },
  };
}
export type AlbumsRepository = ReturnType<typeof createAlbumsRepository>;
