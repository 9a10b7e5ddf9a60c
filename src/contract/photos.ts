import { z } from 'zod';
import { PHOTO_CATEGORIES } from '@domain/photo-categories';
import { achievementView } from './rewards';

/** What analysis decided: one of PHOTO_CATEGORIES, or 'uncategorized' when no category was sure enough. */
export const photoCategory = z.enum([...PHOTO_CATEGORIES, 'uncategorized']);
export type PhotoCategoryResult = z.infer<typeof photoCategory>;

/**
 * Photo shapes shared by the server routes and the client. The spec's Photo fields (id, name, url,
 * thumbnailUrl, uploadedAt, size in bytes, analyzed, category, tags, description, albumId) plus
 * what a fast gallery needs: previewUrl (~1440 px), width/height (after EXIF rotation) and a
 * thumbhash placeholder (base64). Image URLs carry the blob hash (`?v=`), so they are cacheable forever.
 */
export const photo = z.object({
  id: z.string(),
  name: z.string(),
  url: z.string(),
  thumbnailUrl: z.string(),
  previewUrl: z.string(),
  /**
   * The full photo in a format every browser shows (the viewer's zoom): the same as `url` when the
   * original already is one, otherwise a JPEG rendition of it (HEIC, TIFF).
   */
  displayUrl: z.string().optional(),
  uploadedAt: z.string(),
  takenAt: z.string().nullable(),
  size: z.number().int(),
  width: z.number().int(),
  height: z.number().int(),
  thumbhash: z.string().nullable(),
  analyzed: z.boolean(),
  /** Null until analysed. */
  category: photoCategory.nullable(),
  tags: z.array(z.string()),
  description: z.string().nullable(),
  albumId: z.string().nullable(),
  /** True for the demo library every account starts with (does not count towards the free limit). */
  isDemo: z.boolean(),
  /** Marked with the viewer's heart (`PUT /api/photos/:id/favorite`); the Favorites album lists these. */
  favorite: z.boolean(),
  /**
   * The photo-editor filter applied to this photo, if any: url, thumbnailUrl and previewUrl then
   * serve the edited version (the original is kept; `POST /api/photo-filters/revert` restores it).
   */
  appliedFilter: z.object({ filterName: z.string(), intensity: z.number().int() }).nullable().optional(),
});
export type Photo = z.infer<typeof photo>;

export const PHOTO_PAGE_MAX = 200;
/**
 * `GET /api/photos` without `limit` answers the spec's plain array, but only the newest this
 * many: a library of any size costs one bounded answer. Counts over the whole library come from
 * `GET /api/photos/summary`, more photos from the pages.
 */
export const PHOTO_LIST_DEFAULT = PHOTO_PAGE_MAX;

/** `GET /api/photos` without `limit` answers a plain array (the spec); with `limit`, a page. */
export const photosQuery = z.object({
  limit: z.coerce.number().int().min(1).max(PHOTO_PAGE_MAX).optional(),
  cursor: z.string().max(200).optional(),
});
export const photoList = z.array(photo);
export const photoPage = z.object({
  items: z.array(photo),
  /** Pass back as `cursor` for the next page; null on the last page. */
  nextCursor: z.string().nullable(),
  /** How many photos the user has in all. */
  total: z.number().int(),
});
export type PhotoPage = z.infer<typeof photoPage>;

/** `GET /api/photos/summary`: counts over the whole library (the plain list is bounded). */
export const photoSummary = z.object({
  total: z.number().int(),
  analyzed: z.number().int(),
  /** In an album or with a real category (not 'uncategorized'), as the dashboard's Photos Organized. */
  organized: z.number().int(),
  /** Analysed photos per category ('uncategorized' when none), as the organizer's Categories tab. */
  categories: z.array(z.object({ category: photoCategory, count: z.number().int() })),
});
export type PhotoSummary = z.infer<typeof photoSummary>;

export const photoIdParams = z.object({ id: z.string().max(64) });
export { smallThumbnailUrl } from './photos-values';
export const PHOTO_VARIANTS = ['original', 'preview', 'thumbnail', 'small', 'display'] as const;
export type PhotoVariant = (typeof PHOTO_VARIANTS)[number];
export const photoFileParams = z.object({ id: z.string().max(64), variant: z.enum(PHOTO_VARIANTS) });
export const photoFileQuery = z.object({ v: z.string().max(128).optional() });

/** One result per uploaded file, in the order sent: one bad file does not fail its siblings. */
export const uploadResult = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), fileName: z.string(), photo }),
  z.object({ ok: z.literal(false), fileName: z.string(), status: z.number().int(), message: z.string() }),
]);
export type UploadResult = z.infer<typeof uploadResult>;
/**
 * `POST /api/photos` answers 201 when at least one file was stored; when none was, the status of
 * the (first) failure (413 too big, 415 not an image, 422 unreadable, 403 plan limit) with a message.
 */
/**
 * The upload reward of one request: 5 points per photo whose content this user never uploaded
 * before (a re-upload, even after a delete, earns nothing), plus achievements it unlocked.
 * `points` includes the achievements' points, as in the rewards endpoints.
 */
export const uploadReward = z.object({
  points: z.number().int(),
  /** Photos of this request that earned the reward. */
  rewardedPhotos: z.number().int(),
  message: z.string(),
  newAchievements: z.array(achievementView),
});
export type UploadReward = z.infer<typeof uploadReward>;

export const uploadResponse = z.object({
  message: z.string(),
  uploaded: z.number().int(),
  failed: z.number().int(),
  results: z.array(uploadResult),
  /** Null when nothing was rewarded (no popup). */
  reward: uploadReward.nullable().optional(),
});
export type UploadResponse = z.infer<typeof uploadResponse>;

export const deletePhotoResponse = z.object({ message: z.string() });
