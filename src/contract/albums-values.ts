import { isBlankText } from './blank-text';

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

/** An album name with nothing to see (see `isBlankText`): refused as blank. */
export const isBlankAlbumName = isBlankText;
