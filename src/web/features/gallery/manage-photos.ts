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
import { apiRequest, errorMessage, getJson, outcomeUnknown } from '../../lib/api';
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
 * the rest are not deleted (each request is all or nothing). When the server's answer never came
 * (a network error, no answer within the client's wait, a proxy's 502/504 or error page: see
 * `deleteFailure`), it may have deleted them.
 */
export class PartlyDeleted extends Error {
  constructor(
    readonly deleted: string[],
    readonly cause: unknown,
  ) {
    super(`${deleted.length} photos deleted before a request failed`);
  }
}

/**
 * What the toast says of a delete of `count` photos that failed. 'Delete failed' and "not deleted"
 * are said only of the server's own refusal: without its answer (see `outcomeUnknown`) it may have
 * deleted them, and the refresh after every delete then takes them off the screen under those
 * words. `selecting`: the photos were chosen in the grid, where those still shown stay selected.
 */
export function deleteFailure(
  err: unknown,
  count: number,
  selecting: boolean,
): { title: string; description: string; variant: 'destructive' } {
  const partly = err instanceof PartlyDeleted ? err : null;
  const cause = partly ? partly.cause : err;
  const left = count - (partly?.deleted.length ?? 0);
  const title = partly ? `${partly.deleted.length} of ${count} photos deleted` : 'Delete failed';
  if (outcomeUnknown(cause)) {
    const which = partly
      ? `the last ${left === 1 ? 'photo was' : `${left} photos were`}`
      : left === 1
        ? 'the photo was'
        : `the ${left} photos were`;
    const why = cause instanceof TypeError ? 'the connection was lost' : 'the server did not answer';
    return {
      title: partly ? title : 'Delete not confirmed',
      description: `Whether ${which} deleted is unknown: ${why}. Your photos are being refreshed${selecting ? ', and any still shown stay selected' : ''}.`,
      variant: 'destructive',
    };
  }
  return {
    title,
    description: partly
      ? `${left === 1 ? '1 photo was' : `${left} photos were`} not deleted and ${left === 1 ? 'is' : 'are'} still selected. ${errorMessage(cause, 'Please try again.')}`
      : errorMessage(err, `The ${count === 1 ? 'photo' : 'photos'} could not be deleted. Please try again.`),
    variant: 'destructive',
  };
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
