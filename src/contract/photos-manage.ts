import { z } from 'zod';
import { DELETE_PHOTOS_MAX } from './photos-manage-limits';

/**
 * Managing photos: delete many at once, download, favourite, and the viewer's Info panel.
 * Shared by the server routes (features/photos/photos-manage.routes.ts) and the gallery.
 */

export { DELETE_PHOTOS_MAX };

/** All or nothing: one id that is unknown, malformed or another user's deletes none (404). */
export const deletePhotosBody = z.object({
  ids: z.array(z.string().max(64)).min(1).max(DELETE_PHOTOS_MAX),
});
export type DeletePhotosBody = z.infer<typeof deletePhotosBody>;
export const deletePhotosResponse = z.object({ message: z.string(), deleted: z.number().int() });
export type DeletePhotosResponse = z.infer<typeof deletePhotosResponse>;

/** `PUT /api/photos/:id/favorite`: sets (not toggles), so a repeated request changes nothing. */
export const favoriteBody = z.object({ favorite: z.boolean() });
export const favoriteResponse = z.object({ id: z.string(), favorite: z.boolean() });
export type FavoriteResponse = z.infer<typeof favoriteResponse>;

/** `GET /api/photos/:id/download?version=`: the shown version (with its filter) or the untouched original. */
export const DOWNLOAD_VERSIONS = ['current', 'original'] as const;
export type DownloadVersion = (typeof DOWNLOAD_VERSIONS)[number];
export const downloadQuery = z.object({ version: z.enum(DOWNLOAD_VERSIONS).default('current') });

/** `GET /api/photos/:id/info`: what the viewer's Info panel shows; EXIF fields are null when absent. */
export const photoInfo = z.object({
  id: z.string(),
  name: z.string(),
  /**
   * The name the shown version's download is saved under: the uploaded file's, or the photo name
   * with its type's extension; '<name> (edited).jpg' for an edit.
   */
  fileName: z.string(),
  /** The shown version's type (an edit is a JPEG). */
  mime: z.string(),
  uploadedAt: z.string(),
  takenAt: z.string().nullable(),
  camera: z.string().nullable(),
  lens: z.string().nullable(),
  /** Seconds, e.g. 0.004 for 1/250 s. */
  exposureTime: z.number().nullable(),
  fNumber: z.number().nullable(),
  iso: z.number().nullable(),
  /** Millimetres. */
  focalLength: z.number().nullable(),
  /** Pixels of the version shown (an edit is at most 4096 px on its long side). */
  width: z.number().int(),
  height: z.number().int(),
  /** Bytes of the version shown (the edit, when a filter is applied). */
  size: z.number().int(),
  /** Bytes of the untouched original. */
  originalSize: z.number().int(),
  place: z.object({ latitude: z.number(), longitude: z.number() }).nullable(),
  category: z.string().nullable(),
  tags: z.array(z.string()),
  description: z.string().nullable(),
  favorite: z.boolean(),
  edited: z.boolean(),
});
export type PhotoInfo = z.infer<typeof photoInfo>;
