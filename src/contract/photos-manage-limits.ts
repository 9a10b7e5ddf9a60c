/**
 * Zod-free constants of the photo management contract: the gallery's front door, which the
 * dashboard loads on every signed-in visit, imports them without pulling zod into the first
 * screen's JS (bench/README.md, P5).
 */

/** `POST /api/photos/delete` takes at most this many ids (the client sends larger selections in several). */
export const DELETE_PHOTOS_MAX = 200;
