import { z } from 'zod';
import { SEARCH_QUERY_MAX } from '@domain/find';
import { photo, photoCategory, PHOTO_PAGE_MAX } from './photos';

/**
 * The gallery's timeline and search: `GET /api/photos/timeline?limit=&cursor=&q=`, newest taken
 * first (EXIF date taken, otherwise upload time). `q` searches name, category, tags, description,
 * camera and month ("dog", "2024", "food", "iPhone", "March"); every word must match as a prefix.
 */
export const timelineQuery = z.object({
  limit: z.coerce.number().int().min(1).max(PHOTO_PAGE_MAX).default(120),
  cursor: z.string().max(200).optional(),
  q: z
    .string()
    .max(SEARCH_QUERY_MAX, { message: `Search text is limited to ${SEARCH_QUERY_MAX} characters.` })
    .optional(),
  /**
   * Only analysed photos of this category ('uncategorized': analysed without a sure one), as the
   * organizer's Categories tab counts them: its 'View All N Photos' pages through all N.
   */
  category: photoCategory.optional(),
});
export type TimelineQuery = z.infer<typeof timelineQuery>;

export const timelinePage = z.object({
  items: z.array(photo),
  /** Pass back as `cursor` for the next page; null on the last page. */
  nextCursor: z.string().nullable(),
  /** How many photos the timeline (or the search) holds: on the first page only, null after it. */
  total: z.number().int().nullable(),
});
export type TimelinePage = z.infer<typeof timelinePage>;

/** Most photos "Similar photos" lists. */
export const SIMILAR_MAX = 12;
export const similarPhotos = z.object({
  items: z.array(photo.extend({ similarity: z.number() })),
});
export type SimilarPhotos = z.infer<typeof similarPhotos>;

/** The "Possible duplicates" smart album: groups of near-identical photos, largest first. */
export const DUPLICATES_ALBUM_NAME = 'Possible duplicates';
export const duplicates = z.object({
  name: z.string(),
  groups: z.array(z.array(photo)),
  /** Photos in all groups. */
  photoCount: z.number().int(),
});
export type Duplicates = z.infer<typeof duplicates>;
