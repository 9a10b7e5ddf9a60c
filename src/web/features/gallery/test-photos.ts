import type { Photo } from '@contract/photos';

/** A listed photo with the fields the gallery's tests do not care about filled in plainly. */
export const testPhoto = (id: string, name: string): Photo => ({
  id,
  name,
  url: `/api/photos/${id}/original`,
  thumbnailUrl: `/api/photos/${id}/thumbnail?v=1`,
  previewUrl: `/api/photos/${id}/preview`,
  uploadedAt: '2026-03-01T10:00:00.000Z',
  takenAt: null,
  size: 1000,
  width: 10,
  height: 10,
  thumbhash: null,
  analyzed: false,
  category: null,
  tags: [],
  description: null,
  albumId: null,
  isDemo: false,
  favorite: false,
});
