import type { Photo, PhotoPage } from '@contract/photos';

/**
 * The JSON of photos as the contract shapes them (`photo`, `photoList`, `photoPage`), written by
 * hand in the schema's key order: the same text as `JSON.stringify(schema.parse(value))`
 * (photo-json.test.ts), without zod walking every field of every item on each page build. The
 * values come typed from `toPhoto`; what zod would still refuse (an integer that is not one) is
 * refused here, so a bad row fails the request instead of sending a wrong shape.
 */
const q = JSON.stringify as (s: string) => string;

const nullable = (s: string | null) => (s === null ? 'null' : q(s));

function int(n: number, field: string): string {
  if (!Number.isSafeInteger(n)) throw new Error(`photo JSON: ${field} is not an integer`);
  return String(n);
}

const bool = (b: boolean) => (b ? 'true' : 'false');

export function photoJson(p: Photo): string {
  let out = `{"id":${q(p.id)},"name":${q(p.name)},"url":${q(p.url)},"thumbnailUrl":${q(p.thumbnailUrl)},"previewUrl":${q(p.previewUrl)}`;
  if (p.displayUrl !== undefined) out += `,"displayUrl":${q(p.displayUrl)}`;
  out +=
    `,"uploadedAt":${q(p.uploadedAt)},"takenAt":${nullable(p.takenAt)},"size":${int(p.size, 'size')}` +
    `,"width":${int(p.width, 'width')},"height":${int(p.height, 'height')},"thumbhash":${nullable(p.thumbhash)}` +
    `,"analyzed":${bool(p.analyzed)},"category":${nullable(p.category)},"tags":[${p.tags.map((t) => q(t)).join(',')}]` +
    `,"description":${nullable(p.description)},"albumId":${nullable(p.albumId)}` +
    `,"isDemo":${bool(p.isDemo)},"favorite":${bool(p.favorite)}`;
  if (p.appliedFilter !== undefined) {
    const f = p.appliedFilter;
    out +=
      f === null
        ? ',"appliedFilter":null'
        : `,"appliedFilter":{"filterName":${q(f.filterName)},"intensity":${int(f.intensity, 'intensity')}}`;
  }
  return `${out}}`;
}

/** `GET /api/photos` without a limit: the plain array. */
export function photoListJson(items: Photo[]): string {
  return `[${items.map(photoJson).join(',')}]`;
}

/** A page: items, the cursor to the next one, the total. */
export function photoPageJson(page: PhotoPage): string {
  return `{"items":${photoListJson(page.items)},"nextCursor":${nullable(page.nextCursor)},"total":${int(page.total, 'total')}}`;
}
