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

export function useCreateAlbum() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (body: { name: string; description: string; photoIds: string[] }) =>
      (await (await apiRequest('POST', '/api/albums', body)).json()) as Album,
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
