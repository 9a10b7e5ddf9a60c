import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Album } from '@contract/albums';
import { apiRequest } from '../../lib/api';

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
    onSuccess: () => qc.invalidateQueries({ queryKey: albumsQueryOptions().queryKey }),
  });
}
