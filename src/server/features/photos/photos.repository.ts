import { and, count, eq, fillPlaceholders, inArray, isNull, or, sql } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { bigint, integer, pgTable, uuid } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client';
import { blobKeyLocks, lockBlobKeys, type Tx } from '../../db/locks';
import { photos, photoVersions, users } from '../../db/schema';

export type PhotoRow = typeof photos.$inferSelect;
export type NewPhotoRow = typeof photos.$inferInsert;

/**
 * The columns a photo in a list needs (see toPhoto): not the EXIF, the analysis error or the file
 * name, which only the single-photo answers show. Lists of 100-200 rows decode a third less.
 */
export const listedColumns = {
  id: photos.id,
  userId: photos.userId,
  name: photos.name,
  mime: photos.mime,
  size: photos.size,
  width: photos.width,
  height: photos.height,
  originalKey: photos.originalKey,
  previewKey: photos.previewKey,
  thumbnailKey: photos.thumbnailKey,
  thumbhash: photos.thumbhash,
  takenAt: photos.takenAt,
  uploadedAt: photos.uploadedAt,
  demoKey: photos.demoKey,
  analyzed: photos.analyzed,
  category: photos.category,
  tags: photos.tags,
  description: photos.description,
  albumId: photos.albumId,
  currentVersionId: photos.currentVersionId,
  favorite: photos.favorite,
};
export type ListedPhotoRow = Pick<PhotoRow, keyof typeof listedColumns>;

export type AppliedFilter = { filterName: string; intensity: number } | null;
/** The photo as shown: with a filter applied, its blobs are the applied version's. */
export type ShownPhotoRow<R extends ListedPhotoRow = PhotoRow> = R & { appliedFilter: AppliedFilter };

/**
 * Each user's library version and photo count (migration 0004_photo_library_version) and the plan's
 * counts (0009_photo_library_plan_counts), kept by triggers in the same transaction as every write
 * to photos (not in schema.ts, as those migrations are written by hand).
 */
const photoLibrary = pgTable('photo_library', {
  userId: uuid('user_id').primaryKey(),
  version: bigint('version', { mode: 'number' }).notNull(),
  photoCount: integer('photo_count').notNull(),
  counted: integer('counted').notNull(),
  originalBytes: bigint('original_bytes', { mode: 'number' }).notNull(),
});

/** A user's library as of now: `version` changes with every write to their photos. */
export interface LibraryState {
  version: number;
  total: number;
}

/** Timestamps as the text PostgreSQL sends (as drizzle reads them), every other type as `pg` parses it. */
const RAW_TIMESTAMPS = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.TIMESTAMPTZ || oid === pg.types.builtins.TIMESTAMP
      ? (value: string) => value
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** Filtered versions are always JPEG (see filters/filter-pipelines.ts FILTER_OUTPUT). */
const VERSION_MIME = 'image/jpeg';

/** A page read together with the library state it belongs to (one statement, one snapshot). */
export interface ShownPageRows {
  state: LibraryState;
  /** Shown rows: each with its applied filter version overlaid. */
  items: ShownPhotoRow<ListedPhotoRow>[];
  next: PhotoCursor | null;
}

type AppliedVersion = Pick<
  typeof photoVersions.$inferSelect,
  'photoId' | 'filterName' | 'intensity' | 'originalKey' | 'previewKey' | 'thumbnailKey' | 'size'
>;

/**
 * The row as shown: with its current version (photos.current_version_id, set by the photo
 * editor's apply), the original/preview/thumbnail keys, size and mime are the edit's, so every URL
 * and image route serves the edit while `photos.original_key` keeps the untouched original.
 */
function overlay<R extends ListedPhotoRow>(r: R, v: AppliedVersion | null | undefined): ShownPhotoRow<R> {
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
}

/** Keyset position: the exact text of uploaded_at (microseconds survive the round trip) and the id. */
export interface PhotoCursor {
  uploadedAt: string;
  id: string;
}

export async function referencedKeys(tx: Tx | Db, keys: string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const found = new Set<string>();
  const p = await tx
    .select({ o: photos.originalKey, pr: photos.previewKey, t: photos.thumbnailKey })
    .from(photos)
    .where(or(inArray(photos.originalKey, keys), inArray(photos.previewKey, keys), inArray(photos.thumbnailKey, keys)));
  const v = await tx
    .select({ o: photoVersions.originalKey, pr: photoVersions.previewKey, t: photoVersions.thumbnailKey })
    .from(photoVersions)
    .where(
      or(
        inArray(photoVersions.originalKey, keys),
        inArray(photoVersions.previewKey, keys),
        inArray(photoVersions.thumbnailKey, keys),
      ),
    );
  for (const r of [...p, ...v]) for (const k of [r.o, r.pr, r.t]) if (keys.includes(k)) found.add(k);
  return found;
}

/**
 * Locks the user's row, first thing in a transaction that takes blob-key locks and then writes
 * photos. Every write to photos also locks the user's photo_library row (its triggers), so
 * without this order an upload (blob locks, then that row) and a delete of the same user (that
 * row, then blob locks) could deadlock; with it, such transactions of one user run one at a time.
 */
export async function lockOwner(tx: Tx, userId: string): Promise<void> {
  await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('no key update');
}

/** Originals of uploaded photos (the demo library is shared and free) plus every filter version. */
export async function usedBytes(tx: Tx | Db, userId: string): Promise<number> {
  return (await planUsage(tx, userId)).usedBytes;
}

/**
 * What the plan's checks need, in one statement: the user's non-demo photos (the Free plan's
 * limit) and the bytes the storage quota counts (see usedBytes). The first two are kept on the
 * library row by triggers in the same transaction as each write to photos (migration 0009), so they
 * cost one row read at any library size; versions' bytes are summed over the user's versions.
 */
export async function planUsage(tx: Tx | Db, userId: string): Promise<{ counted: number; usedBytes: number }> {
  return planUsageOf(await tx.execute(planUsageSql(userId)));
}

/** planUsage's statement, its columns named (it is also sent together with the upload's locks). */
const planUsageSql = (userId: string) =>
  sql`select coalesce((select ${photoLibrary.counted} from ${photoLibrary} where ${photoLibrary.userId} = ${userId}), 0) as counted,
    coalesce((select ${photoLibrary.originalBytes} from ${photoLibrary} where ${photoLibrary.userId} = ${userId}), 0) as originals,
    (select coalesce(sum(v.size), 0) from ${photoVersions} v join ${photos} p on p.id = v.photo_id where p.user_id = ${userId}) as versions`;

/** planUsageSql's answer (bigint and numeric arrive as text). */
function planUsageOf(result: unknown): { counted: number; usedBytes: number } {
  const [row] = (result as { rows: Array<{ counted: string; originals: string; versions: string }> }).rows;
  return {
    counted: Number(row?.counted ?? 0),
    usedBytes: Number(row?.originals ?? 0) + Number(row?.versions ?? 0),
  };
}

const uploadedAtText = sql<string>`${photos.uploadedAt}::text`;
/**
 * Newest first, in exactly the order of photos_user_uploaded_idx (DESC NULLS LAST). A plain DESC
 * means NULLS FIRST, which that index cannot serve: PostgreSQL then reads and sorts every row of
 * the user (280 ms at 100,000 photos instead of 0.5 ms). Both columns are NOT NULL, so the order is the same.
 */
const newestFirst = [sql`${photos.uploadedAt} desc nulls last`, sql`${photos.id} desc nulls last`];

export function createPhotosRepository(db: Db) {
  // A first page with the library state and each row's applied version joined in: one round
  // trip where the first page otherwise costs three (state, rows, versions). Both come from one
  // snapshot, so the page is exactly the version it is cached under. Its rows are read as arrays
  // and mapped here: drizzle's generic row mapper was the largest item of a cold page build in
  // the server's CPU profile (~1.7 ms of ~10 for 101 rows x 30 columns).
  const firstPageColumns = {
    ...listedColumns,
    position: uploadedAtText,
    version: photoLibrary.version,
    total: photoLibrary.photoCount,
    vPhotoId: photoVersions.photoId,
    vFilterName: photoVersions.filterName,
    vIntensity: photoVersions.intensity,
    vOriginalKey: photoVersions.originalKey,
    vPreviewKey: photoVersions.previewKey,
    vThumbnailKey: photoVersions.thumbnailKey,
    vSize: photoVersions.size,
  };
  const shownPageSql = (after: boolean) =>
    db
      .select(firstPageColumns)
      .from(photos)
      .innerJoin(photoLibrary, eq(photoLibrary.userId, photos.userId))
      .leftJoin(photoVersions, eq(photoVersions.id, photos.currentVersionId))
      .where(
        and(
          eq(photos.userId, sql.placeholder('userId')),
          after
            ? sql`(${photos.uploadedAt}, ${photos.id}) < (${sql.placeholder('afterAt')}::timestamptz, ${sql.placeholder('afterId')}::uuid)`
            : undefined,
        ),
      )
      .orderBy(...newestFirst)
      .limit(sql.placeholder('limit'))
      .toSQL();
  const firstPageSql = shownPageSql(false);
  // The pages after the first (a cursor): never cached, so built for every request; the same one
  // statement and row mapping as the first page instead of three statements, drizzle's query
  // building and its row mapper.
  const afterPageSql = shownPageSql(true);
  const firstPageIndex = Object.fromEntries(Object.keys(firstPageColumns).map((k, i) => [k, i])) as Record<
    keyof typeof firstPageColumns,
    number
  >;
  const pool = (db as unknown as { $client: pg.Pool }).$client;
  async function shownPageRows(userId: string, limit: number, after: PhotoCursor | null): Promise<unknown[][]> {
    const [name, query] = after ? ['photos_after_page_state', afterPageSql] : ['photos_first_page_state', firstPageSql];
    const values = after ? { userId, limit, afterAt: after.uploadedAt, afterId: after.id } : { userId, limit };
    const result = await pool.query<unknown[]>({
      name,
      text: query.sql,
      values: fillPlaceholders(query.params, values),
      rowMode: 'array',
      types: RAW_TIMESTAMPS,
    });
    return result.rows;
  }
  // The image routes' lookup, prepared once (built once; on node-postgres parsed once per connection).
  const byId = db
    .select()
    .from(photos)
    .where(and(eq(photos.userId, sql.placeholder('userId')), eq(photos.id, sql.placeholder('id'))))
    .limit(1)
    .prepare('photos_by_id');
  const library = db
    .select({ version: photoLibrary.version, total: photoLibrary.photoCount })
    .from(photoLibrary)
    .where(eq(photoLibrary.userId, sql.placeholder('userId')))
    .prepare('photo_library_state');
  /** Overlays each row's current version on the row (see `overlay`); one query for the whole list. */
  async function withCurrentVersions<R extends ListedPhotoRow>(rows: R[]): Promise<ShownPhotoRow<R>[]> {
    const ids = [...new Set(rows.map((r) => r.currentVersionId).filter((id): id is string => id !== null))];
    if (ids.length === 0) return rows.map((r) => ({ ...r, appliedFilter: null }));
    const versions = await db.select().from(photoVersions).where(inArray(photoVersions.id, ids));
    const byVersionId = new Map(versions.map((v) => [v.id, v]));
    return rows.map((r) => overlay(r, r.currentVersionId ? byVersionId.get(r.currentVersionId) : undefined));
  }

  return {
    withCurrentVersions,

    async withCurrentVersion<R extends ListedPhotoRow>(row: R): Promise<ShownPhotoRow<R>> {
      const [shown] = await withCurrentVersions([row]);
      return shown!;
    },

    /** One primary-key read: the version every cached first page is keyed by, and the photo count. */
    async libraryState(userId: string): Promise<LibraryState> {
      const [row] = await library.execute({ userId });
      // No row yet: the user never had a photo (the first insert creates it).
      return row ?? { version: 0, total: 0 };
    },

    /**
     * The newest `limit` photos (after `after`, when given) as shown, the cursor after them and the
     * library state, in one statement. A page without rows has nothing to carry the state: it is
     * read on its own then.
     */
    async shownPage(userId: string, limit: number, after: PhotoCursor | null = null): Promise<ShownPageRows> {
      const rows = await shownPageRows(userId, limit + 1, after);
      const head = rows[0];
      if (!head) {
        const [state] = await library.execute({ userId });
        return { state: state ?? { version: 0, total: 0 }, items: [], next: null };
      }
      const more = rows.length > limit;
      const page = more ? rows.slice(0, limit) : rows;
      const i = firstPageIndex;
      const items = page.map((r) => {
        const row = {
          id: r[i.id] as string,
          userId: r[i.userId] as string,
          name: r[i.name] as string,
          mime: r[i.mime] as string,
          size: r[i.size] as number,
          width: r[i.width] as number,
          height: r[i.height] as number,
          originalKey: r[i.originalKey] as string,
          previewKey: r[i.previewKey] as string,
          thumbnailKey: r[i.thumbnailKey] as string,
          thumbhash: r[i.thumbhash] as string | null,
          // As drizzle maps a timestamptz (the text PostgreSQL sends, parsed by Date).
          takenAt: r[i.takenAt] === null ? null : new Date(r[i.takenAt] as string),
          uploadedAt: new Date(r[i.uploadedAt] as string),
          demoKey: r[i.demoKey] as string | null,
          analyzed: r[i.analyzed] as boolean,
          category: r[i.category] as string | null,
          tags: r[i.tags] as string[],
          description: r[i.description] as string | null,
          albumId: r[i.albumId] as string | null,
          currentVersionId: r[i.currentVersionId] as string | null,
          favorite: r[i.favorite] as boolean,
        } satisfies ListedPhotoRow;
        const applied: AppliedVersion | null =
          r[i.vPhotoId] === null
            ? null
            : {
                photoId: r[i.vPhotoId] as string,
                filterName: r[i.vFilterName] as string,
                intensity: r[i.vIntensity] as number,
                originalKey: r[i.vOriginalKey] as string,
                previewKey: r[i.vPreviewKey] as string,
                thumbnailKey: r[i.vThumbnailKey] as string,
                size: r[i.vSize] as number,
              };
        return overlay(row, applied);
      });
      const last = page[page.length - 1]!;
      return {
        // bigint arrives as text (pg does not guess a JavaScript number for it).
        state: { version: Number(head[i.version]), total: head[i.total] as number },
        items,
        next: more ? { uploadedAt: last[i.position] as string, id: last[i.id] as string } : null,
      };
    },

    /** Counts over the whole library in one statement (each subquery on the user_id index). */
    async summary(userId: string) {
      const [totals] = await db
        .select({
          total: count(),
          analyzed: sql<number>`count(*) filter (where ${photos.analyzed})`.mapWith(Number),
          organized:
            sql<number>`count(*) filter (where ${photos.albumId} is not null or coalesce(${photos.category}, 'uncategorized') <> 'uncategorized')`.mapWith(
              Number,
            ),
        })
        .from(photos)
        .where(eq(photos.userId, userId));
      const category = sql<string>`coalesce(${photos.category}, 'uncategorized')`;
      const categories = await db
        .select({ category, count: count() })
        .from(photos)
        .where(and(eq(photos.userId, userId), eq(photos.analyzed, true)))
        .groupBy(category);
      return {
        total: totals?.total ?? 0,
        analyzed: totals?.analyzed ?? 0,
        organized: totals?.organized ?? 0,
        categories: categories.map((c) => ({ category: c.category, count: Number(c.count) })),
      };
    },

    async count(userId: string, opts: { excludeDemo?: boolean } = {}): Promise<number> {
      const [row] = await db
        .select({ n: count() })
        .from(photos)
        .where(and(eq(photos.userId, userId), opts.excludeDemo ? isNull(photos.demoKey) : undefined));
      return row?.n ?? 0;
    },

    async find(userId: string, id: string): Promise<PhotoRow | undefined> {
      return (await byId.execute({ userId, id }))[0];
    },

    async findByDemoKey(userId: string, demoKey: string): Promise<PhotoRow | undefined> {
      const [row] = await db
        .select()
        .from(photos)
        .where(and(eq(photos.userId, userId), eq(photos.demoKey, demoKey)))
        .limit(1);
      return row;
    },

    /** Bytes the storage quota counts: the user's originals (not the demo library) and filter versions. */
    async storageUsed(userId: string, tx: Tx | Db = db): Promise<number> {
      return usedBytes(tx, userId);
    },

    /** The photo count the plan limits and the bytes the quota counts, in one statement. */
    usage(userId: string) {
      return planUsage(db, userId);
    },

    /**
     * Inserts one uploaded photo in a transaction. The user's row is locked first, then their
     * non-demo photos (`maxCounted`, null = unlimited) and stored bytes (`quotaBytes`) are
     * checked, so parallel uploads cannot pass the plan limit or the storage quota.
     * `ensureBlobs` runs under the blob-key locks before commit: it re-writes any blob a
     * concurrent delete removed between the write and this insert. Answers which limit refused it.
     */
    async insertUploaded(
      values: NewPhotoRow,
      opts: { maxCounted: number | null; quotaBytes: number; ensureBlobs: () => Promise<void> },
    ): Promise<PhotoRow | 'limit' | 'quota'> {
      // Three round trips: BEGIN with the user's lock, the blob-key locks and the plan's counts;
      // the insert; COMMIT (or ROLLBACK for a refusal). The first is one simple query (hence the
      // values written into its text: the user's id and the hex keys, never a name or EXIF), so
      // the transaction is begun by hand on a client of its own rather than by db.transaction,
      // which sends BEGIN alone. Its statements run in order, each with a snapshot of its own, so
      // the counts, taken once both locks are held, see every upload committed before. Each round
      // trip costs a wake-up of the database's thread.
      const client = await pool.connect();
      const tx = drizzlePg(client);
      let broken: Error | undefined;
      try {
        // NO KEY UPDATE, as lockOwner: FOR UPDATE also blocks the foreign-key checks (FOR KEY SHARE)
        // of every other insert of this user's rows, which deadlocked awards holding a row needed here.
        const lockUser = sql`select ${users.id} from ${users} where ${users.id} = ${values.userId} for no key update`;
        const lockKeys = blobKeyLocks([values.originalKey, values.previewKey, values.thumbnailKey]);
        const results = (await tx.execute(
          sql
            .join(
              [sql`begin`, lockUser, lockKeys, planUsageSql(values.userId)].filter((q) => q !== null),
              sql`; `,
            )
            .inlineParams(),
        )) as unknown as unknown[];
        const usage = planUsageOf(results[results.length - 1]);
        const refusal =
          opts.maxCounted !== null && usage.counted >= opts.maxCounted
            ? 'limit'
            : usage.usedBytes + values.size > opts.quotaBytes
              ? 'quota'
              : null;
        if (refusal) {
          await tx.execute(sql`rollback`);
          return refusal;
        }
        const [inserted] = await tx.insert(photos).values(values).returning();
        await opts.ensureBlobs();
        if (!inserted) throw new Error('photo insert returned no row');
        await tx.execute(sql`commit`);
        return inserted;
      } catch (err) {
        // Harmless outside a transaction; a client that cannot even roll back is not reused.
        await tx.execute(sql`rollback`).catch((rollbackErr: unknown) => {
          broken = rollbackErr instanceof Error ? rollbackErr : new Error(String(rollbackErr));
        });
        throw err;
      } finally {
        client.release(broken);
      }
    },

    /**
     * The demo library in one statement; skipped entirely if the user already has it. Under the
     * blob-key locks the orphan sweep takes, `ensureBlobs` puts back any file the sweep removed
     * since the caller checked them (no account used them any more): the rows never point at
     * missing files.
     */
    async insertDemo(rows: NewPhotoRow[], ensureBlobs: () => Promise<void>): Promise<PhotoRow[]> {
      if (rows.length === 0) return [];
      return db.transaction(async (tx) => {
        await lockBlobKeys(
          tx,
          rows.flatMap((r) => [r.originalKey, r.previewKey, r.thumbnailKey]),
        );
        await ensureBlobs();
        return tx.insert(photos).values(rows).onConflictDoNothing().returning();
      });
    },

    /**
     * Deletes the photo (its versions cascade) and then, holding the blob-key locks, the blobs no
     * other row references. `removeBlobs` runs inside the transaction so an upload of the same bytes
     * either sees the blob gone (and re-writes it) or commits its row first (and the blob stays).
     */
    async deletePhoto(userId: string, id: string, removeBlobs: (keys: string[]) => Promise<void>): Promise<boolean> {
      return db.transaction(async (tx) => {
        await lockOwner(tx, userId);
        const versions = await tx
          .select({ o: photoVersions.originalKey, p: photoVersions.previewKey, t: photoVersions.thumbnailKey })
          .from(photoVersions)
          .innerJoin(photos, eq(photos.id, photoVersions.photoId))
          .where(and(eq(photos.userId, userId), eq(photoVersions.photoId, id)));
        const [row] = await tx
          .delete(photos)
          .where(and(eq(photos.userId, userId), eq(photos.id, id)))
          .returning();
        if (!row) return false;
        // A demo photo's own blobs are the demo library every new account is given: kept.
        const own = row.demoKey === null ? [row.originalKey, row.previewKey, row.thumbnailKey] : [];
        const keys = [...own, ...versions.flatMap((v) => [v.o, v.p, v.t])];
        await lockBlobKeys(tx, keys);
        const still = await referencedKeys(tx, keys);
        await removeBlobs([...new Set(keys)].filter((key) => !still.has(key)));
        return true;
      });
    },

    /**
     * For the orphan sweep and dropped versions: hands `removeBlobs` the candidates no row
     * references, under their locks, which are held until it has settled.
     */
    async deleteIfUnreferenced(keys: string[], removeBlobs: (keys: string[]) => Promise<unknown>): Promise<void> {
      if (keys.length === 0) return;
      await db.transaction(async (tx) => {
        await lockBlobKeys(tx, keys);
        const still = await referencedKeys(tx, keys);
        const unreferenced = keys.filter((key) => !still.has(key));
        if (unreferenced.length > 0) await removeBlobs(unreferenced);
      });
    },
  };
}
export type PhotosRepository = ReturnType<typeof createPhotosRepository>;
