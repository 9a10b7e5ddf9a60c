import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Album } from '@contract/albums';
import { apiRequest } from '../../lib/api';
import { duplicatesQueryOptions, photosQueryOptions } from '../gallery';
import { isCategoryPagesKey } from './category-query';

export type { Album };

export function albumsQueryOptions() {
  return queryOptions<Album[]>({ queryKey: ['/api/albums'] });
}

export const useAlbums = () => useQuery(albumsQueryOptions());

/**
 * A new `Idempotency-Key`: 32 random hex digits. Not `crypto.randomUUID`, which browsers give only
 * to secure contexts (the app is also served over plain HTTP on a local network address).
 */
export function newIdempotencyKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

export interface NewAlbum {
  body: { name: string; description: string; photoIds: string[] };
  /** One per album the form means to make, sent again with its retries: the server makes it once. */
  key: string;
}

export function useCreateAlbum() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ body, key }: NewAlbum) =>
      (await (await apiRequest('POST', '/api/albums', body, { 'Idempotency-Key': key })).json()) as Album,
    onSuccess: () => {
      // Its photos now have an album: the summary's Photos Organized (the dashboard) and their
      // albumId. Not waited for, as the album list is. An album changes neither a category nor
      // a likeness: a category's pages (each refresh asks every page loaded again) and the
      // Possible duplicates album (a search of the library) stay.
      const duplicates = duplicatesQueryOptions().queryKey;
      void qc.invalidateQueries({
        queryKey: photosQueryOptions().queryKey,
        predicate: (q) => !isCategoryPagesKey(q.queryKey) && q.queryKey[1] !== duplicates[1],
      });
      return qc.invalidateQueries({ queryKey: albumsQueryOptions().queryKey });
    },
  });
}
