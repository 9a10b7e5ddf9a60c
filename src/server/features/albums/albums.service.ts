import { createHash } from 'node:crypto';
import { FAVORITES_ALBUM_ID, FAVORITES_ALBUM_NAME, type Album, type CreateAlbumBody } from '@contract/albums';
import { isBlankAlbumName } from '@contract/albums-values';
import { AppError, badRequest, conflict, notFound } from '../../http/errors';
import { MANUAL_ALBUMS_MAX, smartAlbumDescription, type AlbumsRepository } from './albums.repository';
import type { Passes } from '../../db/passes';

/** `GET /api/albums` answers at most this many (smart albums first, then by name). */
export const ALBUMS_LIST_MAX = 200;
/**
 * Past the cap a new album is refused rather than made: the list's bound (200) holds every album
 * an account can have (the cap, six smart albums and Favorites), so none is ever made unseen.
 */
export const ALBUM_LIMIT_MESSAGE = `You already have ${MANUAL_ALBUMS_MAX} albums, the most one account can keep.`;
export const INVALID_ALBUM_MESSAGE = 'Please enter album name and select photos.';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * An `Idempotency-Key` as the organizer makes one (a random hex or UUID string per album it means
 * to make), with room for other clients' keys: printable, no spaces or commas (two headers arrive
 * joined by ', '), bounded so a key costs a small index entry.
 */
const IDEMPOTENCY_KEY = /^[A-Za-z0-9_-]{8,128}$/;
export const IDEMPOTENCY_KEY_MESSAGE = 'Idempotency-Key must be 8 to 128 letters, digits, hyphens or underscores.';
export const KEY_REUSED_MESSAGE = 'This Idempotency-Key was already used to create a different album.';

/** The header as sent: absent, or one valid key; anything else is refused before any work. */
export function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (typeof header !== 'string' || !IDEMPOTENCY_KEY.test(header)) throw badRequest(IDEMPOTENCY_KEY_MESSAGE);
  return header;
}

/** The description an album gets when the user wrote none (the organizer sends this form too). */
const countedDescription = (n: number) => `Album with ${n} photos`;
/** A stored description that only counts the album's photos: the count of its creation, shown as it is now. */
const COUNTED_DESCRIPTION = /^Album with \d+ photos?$/;

type Row = Awaited<ReturnType<AlbumsRepository['list']>>[number];
const descriptionOf = (r: Row): string => {
  if (r.isSmartAlbum) return smartAlbumDescription(Number(r.photoCount));
  // Photos deleted since (from the gallery, another tab) would leave 'Album with 3 photos' on an
  // album of one.
  return COUNTED_DESCRIPTION.test(r.description) ? countedDescription(Number(r.photoCount)) : r.description;
};
const toAlbum = (r: Row): Album => ({
  id: r.id,
  name: r.name,
  description: descriptionOf(r),
  isSmartAlbum: r.isSmartAlbum,
  photoCount: Number(r.photoCount),
  createdAt: r.createdAt.toISOString(),
});

/**
 * Names in the order a reader expects: letter case and accents aside, numbers by value ('Trip 2'
 * before 'Trip 10'). The database's order is its collation's: byte order on PGlite ('Banana'
 * before 'apple', 'Éclair' after 'zoo'), another on PostgreSQL.
 */
const byName = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/** What a creation asked for, as it is stored: the name and description as kept, the photos as a set. */
function requestHash(name: string, description: string, ids: readonly string[]): string {
  const photos = ids.map((id) => id.toLowerCase()).sort();
  return createHash('sha256')
    .update(JSON.stringify([name, description, photos]))
    .digest('base64url');
}

const keyReused = () => new AppError(422, KEY_REUSED_MESSAGE, 'idempotency_key_reused');

function replayed(first: Row & { requestHash: string | null }, hash: string): Album {
  if (first.requestHash !== hash) throw keyReused();
  return toAlbum(first);
}

export function createAlbumsService(repo: AlbumsRepository) {
  return {
    /**
     * A pure read: smart albums are kept in step by the writes that change them (an analysis
     * result, a photo deleted), so listing never writes.
     */
    async list(userId: string): Promise<Album[]> {
      const [rows, favorites] = await Promise.all([repo.list(userId, ALBUMS_LIST_MAX), repo.favoritesCount(userId)]);
      // Every album an account can have fits the list's bound, so the page is sorted whole.
      const stored = rows
        .map(toAlbum)
        .sort(
          (a, b) =>
            Number(b.isSmartAlbum) - Number(a.isSmartAlbum) ||
            byName.compare(a.name, b.name) ||
            a.createdAt.localeCompare(b.createdAt),
        );
      if (favorites === 0) return stored;
      // Listed first, while the user has favourites; the list keeps its bound.
      const favoritesAlbum: Album = {
        id: FAVORITES_ALBUM_ID,
        name: FAVORITES_ALBUM_NAME,
        description: `Smart album with ${favorites === 1 ? '1 photo' : `${favorites} photos`}`,
        isSmartAlbum: true,
        photoCount: favorites,
        createdAt: new Date(0).toISOString(),
      };
      return [favoritesAlbum, ...stored].slice(0, ALBUMS_LIST_MAX);
    },

    /**
     * With an `Idempotency-Key`, the album is made once: a retry of the same request (its answer
     * lost to the connection) is answered with the album the first one made, wherever it stands
     * now (the cap reached since, its photos deleted since); the same key for a different album is
     * refused (422) and makes nothing.
     */
    async create(userId: string, body: CreateAlbumBody, idempotencyKey?: string): Promise<Album> {
      const name = body.name.trim();
      const ids = [...new Set(body.photoIds)];
      if (isBlankAlbumName(name) || ids.length === 0) throw badRequest(INVALID_ALBUM_MESSAGE);
      // Unknown and other users' photos look the same: not found, and nothing is created.
      if (!ids.every((id) => UUID.test(id))) throw notFound('Photo not found.');
      const description = body.description?.trim() || countedDescription(ids.length);
      const once = idempotencyKey && { key: idempotencyKey, requestHash: requestHash(name, description, ids) };
      if (once) {
        const first = await repo.madeUnder(userId, once.key);
        if (first) return replayed(first, once.requestHash);
      }
      if ((await repo.countOwned(userId, ids)) !== ids.length) throw notFound('Photo not found.');
      // Checked again inside the write: a photo deleted meanwhile is not found either.
      const created = await repo.createManual(userId, name, description, ids, once || undefined);
      if (created === 'limit') throw conflict(ALBUM_LIMIT_MESSAGE);
      if (created === 'key reused') throw keyReused();
      if (!created) throw notFound('Photo not found.');
      if (created.replay) return toAlbum(created.replay);
      return toAlbum(created);
    },
  };
}
export type AlbumsService = ReturnType<typeof createAlbumsService>;

/** The name the smart-album repair runs under: once across processes (`Database.runAlone`), once per database (`data_passes`). */
export const SMART_ALBUM_REPAIR = 'smart-album-repair';

export interface SmartAlbumRepairOptions {
  /** Awaited before each statement after the first: the repair gives way to requests (a quiet server). */
  pause?: () => Promise<void>;
  /** True once the server is closing: the repair stops after the statement under way. */
  stopping?: () => boolean;
  /** Photos read per statement (SMART_REPAIR_BATCH). */
  batch?: number;
  /** Where to start: after this photo id (a pass cut short goes on), or from the first. */
  after?: string | null;
  /** After each batch while none has failed: the pass has come as far as `last`. */
  progress?: (last: string) => Promise<void>;
  log?: (msg: string, err: unknown) => void;
}

/**
 * Puts every analysed photo of every account into the smart albums it belongs to, and out of those
 * it does not, walking the photos in batches by id. Before round eleven a photo's result and its
 * album write were two transactions, and a failed or cut-off album write left it analysed and out
 * of its smart album for good; a photo given up on while the album write kept failing is left so
 * too (`fail` in the analysis repository). Idempotent: a photo in step is only read. Each batch
 * is one read and, per account with a photo out of step, one short transaction under that
 * account's locks, so analysis, uploads and deletes meanwhile wait milliseconds at most and are
 * never undone (the sync reads each photo again under the lock). A batch that fails is logged
 * and passed (the pass is then not `complete`, and its progress not recorded past it). Returns
 * the photos read, those brought in step, and whether it went over every photo without a failure.
 */
export async function repairSmartAlbums(
  repo: AlbumsRepository,
  opts: SmartAlbumRepairOptions = {},
): Promise<{ read: number; repaired: number; complete: boolean }> {
  let after: string | null = opts.after ?? null;
  let read = 0;
  let repaired = 0;
  let failed = false;
  for (let first = true; ; first = false) {
    if (!first) await opts.pause?.();
    if (opts.stopping?.()) return { read, repaired, complete: false };
    const batch = await repo.outOfStep(after, opts.batch);
    read += batch.read;
    const byUser = new Map<string, string[]>();
    for (const p of batch.photos) byUser.set(p.userId, [...(byUser.get(p.userId) ?? []), p.id]);
    for (const [userId, ids] of byUser) {
      try {
        await repo.repairSmartAlbums(userId, ids);
        repaired += ids.length;
      } catch (err) {
        failed = true;
        opts.log?.('smart album repair: could not bring these photos in step', err);
      }
    }
    if (batch.last === null) break;
    after = batch.last;
    if (!failed) await opts.progress?.(after);
  }
  return { read, repaired, complete: !failed };
}

/**
 * `repairSmartAlbums` once per database, not at every start (it read every photo: 7.6 s of
 * background database time per 100,000 photos on PGlite): only while its pass is due
 * (`data_passes`), going on from where a pass cut short by a shutdown had come, and recorded done
 * only after a complete pass. A photo whose album write failed on its last analysis attempt makes
 * it due again (`wantPassAgain` in the analysis repository). Null: not due, nothing read.
 */
export async function repairSmartAlbumsOnce(
  repo: AlbumsRepository,
  passes: Passes,
  opts: Omit<SmartAlbumRepairOptions, 'after' | 'progress'> = {},
): Promise<{ read: number; repaired: number; complete: boolean } | null> {
  const due = await passes.due(SMART_ALBUM_REPAIR);
  if (!due) return null;
  const run = await repairSmartAlbums(repo, {
    ...opts,
    after: due.resumeAfter,
    progress: (last) => passes.progress(SMART_ALBUM_REPAIR, due.wanted, last),
  });
  if (run.complete) await passes.done(SMART_ALBUM_REPAIR, due.wanted);
  return run;
}
