import {
  infiniteQueryOptions,
  queryOptions,
  useIsMutating,
  useMutation,
  useQueryClient,
  type InfiniteData,
  type QueryClient,
} from '@tanstack/react-query';
import type { DeletePhotosResponse, PhotoInfo } from '@contract/photos-manage';
import { DELETE_PHOTOS_MAX } from '@contract/photos-manage-limits';
import { apiRequest, getJson } from '../../lib/api';
import type { Photo, PhotoPage } from '@contract/photos';
import { GALLERY_PAGE_SIZE, refreshLibrary } from './photos-query';

export type { PhotoInfo };

/** Every cached photo list and page lives under this key (list, pages, summary, favourites). */
const PHOTOS_KEY = ['/api/photos'];
/** The Favorites album's pages: under PHOTOS_KEY, so a photo change refreshes them too. */
export function favoritePagesQueryOptions(pageSize = GALLERY_PAGE_SIZE) {
  return infiniteQueryOptions({
    queryKey: ['/api/photos', 'favorites', pageSize],
    initialPageParam: null as string | null,
    queryFn: async ({ pageParam }): Promise<PhotoPage> => {
      const qs = new URLSearchParams({ limit: String(pageSize) });
      if (pageParam) qs.set('cursor', pageParam);
      return getJson<PhotoPage>(`/api/photos/favorites?${qs}`);
    },
    getNextPageParam: (last) => last.nextCursor,
  });
}

/** `GET /api/photos/:id/info`, for the Info panel (fetched when it opens). */
export function photoInfoQueryOptions(id: string) {
  return queryOptions<PhotoInfo>({ queryKey: ['/api/photos', id, 'info'] });
}

/** Where the viewer's Download saves the photo from (the server names the file). */
export const downloadUrl = (id: string, version: 'current' | 'original') =>
  `/api/photos/${encodeURIComponent(id)}/download?version=${version}`;

type Cached = Photo[] | InfiniteData<PhotoPage> | undefined;
/** Applies `edit` to every cached photo list and page, so every screen shows the change at once. */
function editCachedPhotos(qc: QueryClient, edit: (items: Photo[]) => Photo[]) {
  qc.setQueriesData<Cached>({ queryKey: PHOTOS_KEY }, (data) => {
    if (Array.isArray(data)) return edit(data);
    if (data && typeof data === 'object' && 'pages' in data && Array.isArray(data.pages)) {
      return { ...data, pages: data.pages.map((p) => ({ ...p, items: edit(p.items) })) };
    }
    return data;
  });
}

/**
 * A delete sent in several requests whose later request failed: the photos of the requests
 * answered before it are gone (`deleted`); `cause` is the failure. When the server refused it,
 * the rest are not deleted (each request is all or nothing). When its answer never came (`lost`:
 * a network error, or no answer within the client's wait), the server may have deleted them.
 */
export class PartlyDeleted extends Error {
  readonly lost: boolean;
  constructor(
    readonly deleted: string[],
    readonly cause: unknown,
  ) {
    super(`${deleted.length} photos deleted before a request failed`);
    // apiRequest fails a request with no answer as a TypeError, as fetch does.
    this.lost = cause instanceof TypeError;
  }
}

/**
 * Deletes the given photos (`POST /api/photos/delete`, in requests of at most DELETE_PHOTOS_MAX).
 * They leave every cached list at once; lists, counts and albums are then fetched again. When a
 * later request fails, those of the requests answered before it leave too (`PartlyDeleted`).
 */
export function useDeletePhotos() {
  const qc = useQueryClient();
  const drop = (ids: string[]) => {
    const gone = new Set(ids);
    editCachedPhotos(qc, (items) => items.filter((p) => !gone.has(p.id)));
  };
  return useMutation({
    // Offline, TanStack would hold the request until the connection came back, and the
    // confirmation, which cannot close while its delete is on its way, with it: it fails at once.
    networkMode: 'always',
    mutationFn: async (ids: string[]) => {
      let deleted = 0;
      for (let i = 0; i < ids.length; i += DELETE_PHOTOS_MAX) {
        const batch = ids.slice(i, i + DELETE_PHOTOS_MAX);
        try {
          const res = await apiRequest('POST', '/api/photos/delete', { ids: batch });
          deleted += ((await res.json()) as DeletePhotosResponse).deleted;
        } catch (err) {
          // Said as 'Delete failed', the photos of the requests before it stayed on screen and
          // selected though they were gone (each request is all or nothing on the server).
          throw i > 0 ? new PartlyDeleted(ids.slice(0, i), err) : err;
        }
      }
      return deleted;
    },
    onSuccess: (_deleted, ids) => drop(ids),
    onError: (err) => {
      if (err instanceof PartlyDeleted) drop(err.deleted);
    },
    // After a failure too: a request given up on may have been answered by the server.
    onSettled: () => refreshLibrary(qc),
  });
}

const FAVORITE_KEY = ['favorite'];

/**
 * Whether a favourite of this photo is on its way. Its heart refuses presses meanwhile: a second
 * press undid the first on screen, and when both were refused each put back what it had changed,
 * in turn, so the heart ended hearted though the server had kept neither.
 */
export const useFavoriteSaving = (id: string) =>
  useIsMutating({
    mutationKey: FAVORITE_KEY,
    predicate: (m) => (m.state.variables as { id?: string } | undefined)?.id === id,
  }) > 0;

/** Sets a photo's favourite flag; the heart changes at once and goes back if the server refuses. */
export function useSetFavorite() {
  const qc = useQueryClient();
  const set = (id: string, favorite: boolean) =>
    editCachedPhotos(qc, (items) => items.map((p) => (p.id === id ? { ...p, favorite } : p)));
  return useMutation({
    // Offline, a held request showed the heart set while nothing was saved (lost with the tab): it
    // fails at once, and the heart goes back with a message.
    networkMode: 'always',
    mutationKey: FAVORITE_KEY,
    mutationFn: async ({ id, favorite }: { id: string; favorite: boolean }) =>
      (await apiRequest('PUT', `/api/photos/${encodeURIComponent(id)}/favorite`, { favorite })).json(),
    onMutate: ({ id, favorite }) => set(id, favorite),
    onError: (_err, { id, favorite }) => set(id, !favorite),
    onSettled: (_r, _err, { id }) =>
      Promise.all([
        qc.invalidateQueries({ queryKey: ['/api/photos', 'favorites'] }),
        qc.invalidateQueries({ queryKey: ['/api/photos', id, 'info'] }),
        qc.invalidateQueries({ queryKey: ['/api/albums'] }),
      ]),
  });
}
