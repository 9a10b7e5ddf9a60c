import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import type { Photo } from '@contract/photos';
import type { EditResponse, FilterOption, PreviewResponse } from '@contract/filters';
import type { FilterId } from '@domain/filters';
import { apiRequest, throwIfResNotOk } from '../../lib/api';
import { photosQueryOptions } from '../gallery';

const PHOTO_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether the address's `photoId` can name a photo: one of the server's ids, or 'demo'. The photo's
 * key is its URL path (`/api/photos/<id>`), so an id of '../auth/user' made this screen fetch, and
 * render as a photo, whatever same-origin address a link chose (and crash on it).
 */
export const isEditablePhotoId = (id: string) => id === 'demo' || PHOTO_ID.test(id);

/** The photo being edited (`GET /api/photos/:id`, 'demo' for the editor demo photo). Under '/api/photos'. */
export function editorPhotoQueryOptions(photoId: string) {
  return queryOptions<Photo>({ queryKey: ['/api/photos', photoId] });
}

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { credentials: 'include' });
  await throwIfResNotOk(res);
  return (await res.json()) as T;
}

/** The six filter options with a swatch of this photo each. */
export function filterOptionsQueryOptions(photoId: string) {
  return queryOptions<FilterOption[]>({
    queryKey: ['/api/photo-filters/available', photoId],
    queryFn: () => getJson(`/api/photo-filters/available?${new URLSearchParams({ photoId })}`),
  });
}

/**
 * A filtered preview (`POST /api/photo-filters/preview`), as a query so each (photo, filter,
 * intensity) is asked once and a late answer for an old choice never replaces the current one.
 */
export function filterPreviewQueryOptions(photoId: string, filterName: FilterId | null, intensity: number) {
  return queryOptions<PreviewResponse>({
    queryKey: ['/api/photo-filters/preview', photoId, filterName, intensity],
    queryFn: async () =>
      (await apiRequest('POST', '/api/photo-filters/preview', { photoId, filterName, intensity })).json(),
    enabled: filterName !== null,
    staleTime: Infinity,
  });
}

function useEditMutation(url: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (body: object): Promise<EditResponse> => (await apiRequest('POST', url, body)).json(),
    // The gallery, the dashboard and this screen all read under '/api/photos'.
    onSuccess: () => qc.invalidateQueries({ queryKey: photosQueryOptions().queryKey }),
  });
}

export const useApplyFilter = () => useEditMutation('/api/photo-filters/apply');
export const useRevertFilter = () => useEditMutation('/api/photo-filters/revert');
