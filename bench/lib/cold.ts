/**
 * P3's cold request: a page the server must build for every request, never a cached answer.
 *
 * The first page is cached per library version and `Cache-Control: no-cache` is answered from
 * that checked copy (features/photos/first-pages.ts), so neither measures a build. A page asked
 * for with a keyset cursor is never cached: it is read, counted and serialised on every request.
 * The cursor here sits above the newest photo (later than any upload time, the largest id), so
 * the page holds the same photos as the first page, on both libraries (a real second page of a
 * 100-photo library would be empty), and the bench checks the bytes match the cached answer's.
 */
export const TOP_CURSOR = Buffer.from(
  JSON.stringify(['9999-12-31T23:59:59.999999Z', 'ffffffff-ffff-ffff-ffff-ffffffffffff']),
).toString('base64url');

/** `path` (a first page with `limit`) asked for through the uncached keyset path. */
export const coldPath = (path: string) => `${path}&cursor=${TOP_CURSOR}`;
