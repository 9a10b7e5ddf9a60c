/**
 * Zod-free values of the photos contract: the dashboard, a first-load screen, uses them without
 * building the contract's schemas (see albums-values.ts for why that matters).
 */

/**
 * The small rendition of a photo's thumbnail (240 px, made from it on demand), for boxes of about
 * 80 CSS pixels such as the dashboard's Recent Photos: under half the bytes of the 400 px
 * thumbnail, which a phone's first screen would otherwise fetch four times. Same owner check and
 * version as the thumbnail; any other URL (none, or not a thumbnail's) comes back as it is.
 */
export function smallThumbnailUrl<T extends string | null | undefined>(thumbnailUrl: T): T {
  return (
    thumbnailUrl ? thumbnailUrl.replace(/^(\/api\/photos\/[^/?#]+\/)thumbnail(?=\?|$)/, '$1small') : thumbnailUrl
  ) as T;
}
