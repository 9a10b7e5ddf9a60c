import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Album } from '@contract/albums';
import { apiRequest } from '../../lib/api';
import { photosQueryOptions } from '../gallery';
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
      // albumId. Not waited for, as the album list is. A category's pages stay: an album changes
      // no category, and each refresh would ask every page loaded again.
      void qc.invalidateQueries({
        queryKey: photosQueryOptions().queryKey,
        predicate: (q) => !isCategoryPagesKey(q.queryKey),
      });
      return qc.invalidateQueries({ queryKey: albumsQueryOptions().queryKey });
    },
  });
}
