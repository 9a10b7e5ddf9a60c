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

export { FAVORITES_ALBUM_ID, FAVORITES_ALBUM_NAME } from './albums-values';

export const ALBUM_NAME_MAX = 100;

export const createAlbumBody = z.object({
  name: z.string().max(ALBUM_NAME_MAX),
  description: z.string().max(500).optional(),
  photoIds: z.array(z.string().max(64)).max(1000),
});
export type CreateAlbumBody = z.infer<typeof createAlbumBody>;
