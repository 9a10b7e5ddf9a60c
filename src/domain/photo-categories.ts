/**
 * The categories the organizer sorts photos into: the vocabulary shared by the server (which
 * decides them) and the web (which shows them as smart albums).
 */

export const PHOTO_CATEGORIES = [
  'people',
  'animals',
  'food_drink',
  'nature_landscape',
  'vehicles_transport',
  'city_architecture',
] as const;
export type PhotoCategory = (typeof PHOTO_CATEGORIES)[number];
export type CategoryResult = PhotoCategory | 'uncategorized';

export function isPhotoCategory(v: unknown): v is PhotoCategory {
  return typeof v === 'string' && (PHOTO_CATEGORIES as readonly string[]).includes(v);
}
