import { z } from 'zod';

/** Spec Album (id, name, description, isSmartAlbum) plus what the organizer lists with it. */
export const album = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  isSmartAlbum: z.boolean(),
  photoCount: z.number().int(),
  createdAt: z.string(),
});
export type Album = z.infer<typeof album>;
export const albumList = z.array(album);

/**
 * The Favorites album: a smart album listed first while the user has favourites, whose photos are
 * `GET /api/photos/favorites` (it is not stored: the photos' favorite flag is its membership).
 */
export const FAVORITES_ALBUM_ID = 'favorites';
export const FAVORITES_ALBUM_NAME = 'Favorites';

export const ALBUM_NAME_MAX = 100;

export const createAlbumBody = z.object({
  name: z.string().max(ALBUM_NAME_MAX),
  description: z.string().max(500).optional(),
  photoIds: z.array(z.string().max(64)).max(1000),
});
export type CreateAlbumBody = z.infer<typeof createAlbumBody>;
