import { FAVORITES_ALBUM_ID, FAVORITES_ALBUM_NAME, type Album, type CreateAlbumBody } from '@contract/albums';
import { isBlankAlbumName } from '@contract/albums-values';
import { badRequest, conflict, notFound } from '../../http/errors';
import { MANUAL_ALBUMS_MAX, smartAlbumDescription, type AlbumsRepository } from './albums.repository';

/** `GET /api/albums` answers at most this many (smart albums first, then by name). */
export const ALBUMS_LIST_MAX = 200;
/**
 * Past the cap a new album is refused rather than made: the list's bound (200) holds every album
 * an account can have (the cap, six smart albums and Favorites), so none is ever made unseen.
 */
export const ALBUM_LIMIT_MESSAGE = `You already have ${MANUAL_ALBUMS_MAX} albums, the most one account can keep.`;
export const INVALID_ALBUM_MESSAGE = 'Please enter album name and select photos.';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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

    async create(userId: string, body: CreateAlbumBody): Promise<Album> {
      const name = body.name.trim();
      const ids = [...new Set(body.photoIds)];
      if (isBlankAlbumName(name) || ids.length === 0) throw badRequest(INVALID_ALBUM_MESSAGE);
      // Unknown and other users' photos look the same: not found, and nothing is created.
      if (!ids.every((id) => UUID.test(id)) || (await repo.countOwned(userId, ids)) !== ids.length) {
        throw notFound('Photo not found.');
      }
      const description = body.description?.trim() || countedDescription(ids.length);
      // Checked again inside the write: a photo deleted meanwhile is not found either.
      const created = await repo.createManual(userId, name, description, ids);
      if (created === 'limit') throw conflict(ALBUM_LIMIT_MESSAGE);
      if (!created) throw notFound('Photo not found.');
      return toAlbum(created);
    },
  };
}
export type AlbumsService = ReturnType<typeof createAlbumsService>;
