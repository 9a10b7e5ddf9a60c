/**
 * Zod-free values of the albums contract: the organizer loads them without building the contract's
 * schemas, whose first object schema makes zod probe `new Function('')`, which the CSP refuses
 * and the browser reports as a Content Security Policy issue (Lighthouse best practices).
 */

/**
 * The Favorites album: a smart album listed first while the user has favourites, whose photos are
 * `GET /api/photos/favorites` (it is not stored: the photos' favorite flag is its membership).
 */
export const FAVORITES_ALBUM_ID = 'favorites';
export const FAVORITES_ALBUM_NAME = 'Favorites';

/**
 * An album name with nothing to see: spaces of any kind, control and format characters (a
 * zero-width space, a direction mark, a word joiner) and the blank letters (Hangul fillers, the
 * blank Braille pattern) alone. JavaScript's `trim` keeps all but the spaces, so such a name passed
 * as non-blank and the album was listed without a title.
 */
export const isBlankAlbumName = (name: string) => /^[\s\p{Z}\p{Cc}\p{Cf}\u115F\u1160\u3164\uFFA0\u2800]*$/u.test(name);
