import type { Photo, PhotoPage } from '@contract/photos';

/**
 * The JSON of photos as the contract shapes them (`photo`, `photoList`, `photoPage`): the same text
 * as `JSON.stringify(schema.parse(value))` (photo-json.test.ts), without zod walking every field of
 * every item on each page build. Each photo is copied field by field in the schema's key order, so
 * nothing but the contract's fields is ever sent, and V8's JSON.stringify (faster on plain objects
 * than zod's parse or string building by hand, measured on a 100-photo page) writes it. The values
 * come typed from `toPhoto`; what zod would still refuse, an integer that is not one, is refused
 * here, so a bad row fails the request instead of sending a wrong shape.
 */
function int(n: number, field: string): number {
  if (!Number.isSafeInteger(n)) throw new Error(`photo JSON: ${field} is not an integer`);
  return n;
}

function shaped(p: Photo): Photo {
  const out: Photo = {
    id: p.id,
    name: p.name,
    url: p.url,
    thumbnailUrl: p.thumbnailUrl,
    previewUrl: p.previewUrl,
    displayUrl: p.displayUrl,
    uploadedAt: p.uploadedAt,
    takenAt: p.takenAt,
    size: int(p.size, 'size'),
    width: int(p.width, 'width'),
    height: int(p.height, 'height'),
    thumbhash: p.thumbhash,
    analyzed: p.analyzed,
    category: p.category,
    tags: p.tags,
    description: p.description,
    albumId: p.albumId,
    isDemo: p.isDemo,
    favorite: p.favorite,
  };
  const f = p.appliedFilter;
  if (f !== undefined) {
    out.appliedFilter = f === null ? null : { filterName: f.filterName, intensity: int(f.intensity, 'intensity') };
  }
  return out;
}

export function photoJson(p: Photo): string {
  return JSON.stringify(shaped(p));
}

/** `GET /api/photos` without a limit: the plain array. */
export function photoListJson(items: Photo[]): string {
  return JSON.stringify(items.map(shaped));
}

/** A page: items, the cursor to the next one, the total. */
export function photoPageJson(page: PhotoPage): string {
  return JSON.stringify({
    items: page.items.map(shaped),
    nextCursor: page.nextCursor,
    total: int(page.total, 'total'),
  });
}
