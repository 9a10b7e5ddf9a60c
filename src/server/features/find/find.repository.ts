import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { photos } from '../../db/schema';
import { listedColumns } from '../photos/index';

export type PhotoRow = typeof photos.$inferSelect;

/** Keyset position in the timeline: the exact text of sort_at (microseconds survive) and the id. */
export interface TimelineCursor {
  at: string;
  id: string;
}

/** Which photos of the timeline a page holds: all of them without either. */
export interface TimelineFilter {
  /** Search words as a prefix tsquery. */
  tsquery: string | null;
  /** Analysed photos of this category ('uncategorized' too). */
  category?: string;
}

export interface StoredFingerprint {
  photoId: string;
  vector: Uint8Array;
}

function rowsOf<T>(res: unknown): T[] {
  return (res as { rows: T[] }).rows;
}

// Columns of migration 0003_find, not in schema.ts (see the migration).
const sortAt = sql.raw('"photos"."sort_at"');
const searchDoc = sql.raw('"photos"."search_doc"');
/** Newest taken first, in exactly the order of photos_user_sort_idx (DESC NULLS LAST, as the upload index). */
const takenNewestFirst = [sql`${sortAt} desc nulls last`, sql`${photos.id} desc nulls last`];
const matches = (tsquery: string) => sql`${searchDoc} @@ to_tsquery('simple', ${tsquery})`;

export function createFindRepository(db: Db) {
  const where = (userId: string, filter: TimelineFilter, cursor: TimelineCursor | null): SQL | undefined =>
    and(
      eq(photos.userId, userId),
      filter.tsquery ? matches(filter.tsquery) : undefined,
      // As the summary counts a category (photos.repository.ts `summary`), so a page holds what its count said.
      // Written as photos_user_category_sort_idx's predicate and key (a bound `analyzed = $1` would
      // not prove its WHERE under a generic plan).
      filter.category
        ? and(sql`${photos.analyzed}`, sql`coalesce(${photos.category}, 'uncategorized') = ${filter.category}`)
        : undefined,
      cursor ? sql`(${sortAt}, ${photos.id}) < (${cursor.at}::timestamptz, ${cursor.id}::uuid)` : undefined,
    );

  /** The page's statement (exported for the plan test, find-plan.pg.api.test.ts). */
  const pageQuery = (userId: string, limit: number, cursor: TimelineCursor | null, filter: TimelineFilter) =>
    db
      .select({ photo: listedColumns, position: sql<string>`${sortAt}::text` })
      .from(photos)
      .where(where(userId, filter, cursor))
      .orderBy(...takenNewestFirst)
      .limit(limit + 1);
  const countQuery = (userId: string, filter: TimelineFilter) =>
    db
      .select({ n: sql<number>`count(*)::int` })
      .from(photos)
      .where(where(userId, filter, null));

  return {
    pageQuery,
    countQuery,

    /** One timeline page, newest taken first; with a filter, only the photos it matches. */
    async page(userId: string, limit: number, cursor: TimelineCursor | null, filter: TimelineFilter) {
      const rows = await pageQuery(userId, limit, cursor, filter);
      const more = rows.length > limit;
      const items = rows.slice(0, limit);
      const last = items[items.length - 1];
      return {
        items: items.map((r) => r.photo),
        next: more && last ? { at: last.position, id: last.photo.id } : null,
      };
    },

    /** How many photos the timeline (or the search, or the category) holds. */
    async count(userId: string, filter: TimelineFilter): Promise<number> {
      const [row] = await countQuery(userId, filter);
      return Number(row?.n ?? 0);
    },

    /** The user's photos with these ids (others' ids are simply not found), in no particular order. */
    async photosByIds(userId: string, ids: string[]): Promise<PhotoRow[]> {
      if (ids.length === 0) return [];
      return db
        .select()
        .from(photos)
        .where(and(eq(photos.userId, userId), sql`${photos.id} = any(${sql.param(ids)}::uuid[])`));
    },

    /** Photos of the user without a fingerprint of `model`, newest taken first, with their thumbnail key. */
    async missingFingerprints(userId: string, model: string, limit: number) {
      const res = await db.execute(sql`
        select p.id, p.thumbnail_key from ${photos} p
        where p.user_id = ${userId}
          and not exists (select 1 from photo_fingerprints f where f.photo_id = p.id and f.model = ${model})
        order by p.sort_at desc nulls last, p.id desc nulls last
        limit ${limit}`);
      return rowsOf<{ id: string; thumbnail_key: string }>(res).map((r) => ({
        id: r.id,
        thumbnailKey: r.thumbnail_key,
      }));
    },

    async thumbnailKey(userId: string, photoId: string): Promise<string | undefined> {
      const [row] = await db
        .select({ key: photos.thumbnailKey })
        .from(photos)
        .where(and(eq(photos.userId, userId), eq(photos.id, photoId)));
      return row?.key;
    },

    /**
     * Stores a fingerprint unless the photo has one (or is gone: the insert then selects nothing).
     * On PostgreSQL a delete may also commit between the insert's read of the photo and its foreign
     * key check, which then fails the statement: the photo is gone all the same.
     */
    async saveFingerprint(
      userId: string,
      photoId: string,
      model: string,
      vector: Buffer,
      bands: readonly [number, number, number, number],
    ): Promise<void> {
      await db
        .execute(
          sql`
        insert into photo_fingerprints (photo_id, user_id, model, vector, band0, band1, band2, band3)
        select p.id, p.user_id, ${model}, ${vector}, ${bands[0]}, ${bands[1]}, ${bands[2]}, ${bands[3]}
        from ${photos} p where p.id = ${photoId} and p.user_id = ${userId}
        on conflict (photo_id) do nothing`,
        )
        .catch((err: unknown) => {
          if (!isForeignKeyViolation(err)) throw err;
        });
    },

    async fingerprint(userId: string, photoId: string, model: string): Promise<StoredFingerprint | undefined> {
      const res = await db.execute(sql`
        select photo_id, vector from photo_fingerprints
        where user_id = ${userId} and photo_id = ${photoId} and model = ${model}`);
      const [r] = rowsOf<{ photo_id: string; vector: Uint8Array }>(res);
      return r ? { photoId: r.photo_id, vector: r.vector } : undefined;
    },

    /**
     * Candidates for "Similar photos": the `recent` newest-taken fingerprinted photos of the user
     * plus any photo sharing a hash band with `photoId` (near-identical ones anywhere in the library).
     */
    async similarCandidates(userId: string, photoId: string, model: string, recent: number, perBand: number) {
      const res = await db.execute(sql`
        with me as (select * from photo_fingerprints where photo_id = ${photoId} and user_id = ${userId}),
        recent as (
          select f.photo_id from ${photos} p join photo_fingerprints f on f.photo_id = p.id and f.model = ${model}
          where p.user_id = ${userId}
          order by p.sort_at desc nulls last, p.id desc nulls last
          limit ${recent}),
        banded as (
          (select f.photo_id from photo_fingerprints f, me where f.user_id = ${userId} and f.model = ${model} and f.band0 = me.band0 limit ${perBand})
          union (select f.photo_id from photo_fingerprints f, me where f.user_id = ${userId} and f.model = ${model} and f.band1 = me.band1 limit ${perBand})
          union (select f.photo_id from photo_fingerprints f, me where f.user_id = ${userId} and f.model = ${model} and f.band2 = me.band2 limit ${perBand})
          union (select f.photo_id from photo_fingerprints f, me where f.user_id = ${userId} and f.model = ${model} and f.band3 = me.band3 limit ${perBand}))
        select f.photo_id, f.vector from photo_fingerprints f
        where f.photo_id in (select photo_id from recent union select photo_id from banded) and f.photo_id <> ${photoId}`);
      return rowsOf<{ photo_id: string; vector: Uint8Array }>(res).map((r) => ({
        photoId: r.photo_id,
        vector: r.vector,
      }));
    },

    /**
     * Buckets of photos sharing a hash band (each band value held by two or more photos), at most
     * `buckets` per band and `size` photos per bucket, with the vectors of every photo named.
     */
    async bandBuckets(userId: string, model: string, buckets: number, size: number) {
      const perBand = (band: string) => sql`
        (select array_agg(photo_id order by photo_id) as ids from (
           select photo_id, ${sql.raw(band)} as v,
                  row_number() over (partition by ${sql.raw(band)} order by photo_id) as n,
                  count(*) over (partition by ${sql.raw(band)}) as c
           from photo_fingerprints where user_id = ${userId} and model = ${model}) t
         where c > 1 and n <= ${size}
         group by v order by v limit ${buckets})`;
      const res = await db.execute(sql`
        ${perBand('band0')} union all ${perBand('band1')} union all ${perBand('band2')} union all ${perBand('band3')}`);
      const groups = rowsOf<{ ids: string[] | string }>(res).map((r) => parseUuidArray(r.ids));
      const ids = [...new Set(groups.flat())];
      const vec = ids.length
        ? rowsOf<{ photo_id: string; vector: Uint8Array }>(
            await db.execute(
              sql`select photo_id, vector from photo_fingerprints where user_id = ${userId} and photo_id = any(${sql.param(ids)}::uuid[])`,
            ),
          )
        : [];
      return { buckets: groups, vectors: vec.map((r) => ({ photoId: r.photo_id, vector: r.vector })) };
    },
  };
}
export type FindRepository = ReturnType<typeof createFindRepository>;

/** PostgreSQL's foreign_key_violation, through drizzle's wrapper (the driver's error is its `cause`). */
function isForeignKeyViolation(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { code?: unknown }).code === '23503') return true;
  }
  return false;
}

/** node-postgres parses uuid[] into an array; PGlite may hand back the text form '{a,b}'. */
function parseUuidArray(v: string[] | string): string[] {
  if (Array.isArray(v)) return v;
  return v
    .replace(/^\{|\}$/g, '')
    .split(',')
    .filter(Boolean);
}
