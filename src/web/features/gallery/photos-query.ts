import { infiniteQueryOptions, queryOptions, type QueryClient } from '@tanstack/react-query';
import type { Duplicates, TimelinePage } from '@contract/find';
import type { Photo, PhotoPage, PhotoSummary } from '@contract/photos';
import { getJson, slowRead } from '../../lib/api';

/**
 * The plain list (`GET /api/photos`): the newest photos only (the server bounds it), for
 * small screens such as the dashboard. Counts over the whole library: `photoSummaryQueryOptions`.
 */
export function photosQueryOptions() {
  return queryOptions<Photo[]>({ queryKey: ['/api/photos'] });
}

/** `GET /api/photos/summary` (total, analysed, organised, per category); refreshed with the photos. */
export function photoSummaryQueryOptions() {
  return queryOptions<PhotoSummary>({ queryKey: ['/api/photos', 'summary'] });
}

export const GALLERY_PAGE_SIZE = 120;

/**
 * The gallery's pages (`GET /api/photos?limit=&cursor=`), newest first. Its key starts with
 * '/api/photos', so invalidating `photosQueryOptions().queryKey` refreshes both.
 */
export function photoPagesQueryOptions(pageSize = GALLERY_PAGE_SIZE) {
  return infiniteQueryOptions({
    queryKey: ['/api/photos', 'pages', pageSize],
    initialPageParam: null as string | null,
    queryFn: async ({ pageParam }): Promise<PhotoPage> => {
      const qs = new URLSearchParams({ limit: String(pageSize) });
      if (pageParam) qs.set('cursor', pageParam);
      return getJson<PhotoPage>(`/api/photos?${qs}`);
    },
    getNextPageParam: (last) => last.nextCursor,
  });
}

/**
 * The gallery's timeline (`GET /api/photos/timeline`), newest taken first; with `q`, the search
 * results. Its key starts with '/api/photos' so uploads and deletes refresh it too.
 */
export function timelinePagesQueryOptions(q = '', pageSize = GALLERY_PAGE_SIZE) {
  return infiniteQueryOptions({
    queryKey: ['/api/photos', 'timeline', q, pageSize],
    initialPageParam: null as string | null,
    queryFn: async ({ pageParam, signal }): Promise<TimelinePage> => {
      const qs = new URLSearchParams({ limit: String(pageSize) });
      if (q) qs.set('q', q);
      if (pageParam) qs.set('cursor', pageParam);
      return getJson<TimelinePage>(`/api/photos/timeline?${qs}`, { signal });
    },
    getNextPageParam: (last) => last.nextCursor,
  });
}

/** The "Possible duplicates" smart album (`GET /api/photos/duplicates`). */
export function duplicatesQueryOptions() {
  return queryOptions<Duplicates>({ queryKey: ['/api/photos', 'duplicates'], meta: slowRead });
}

/**
 * After photos join or leave the library: every photo list and count, and what the Organizer
 * reads beside them (its own keys, outside '/api/photos'): the analysis count, which new photos
 * are queued into, and the albums, which deletes empty and analysis results fill. Each is kept
 * until asked again (staleTime: Infinity), so the Organizer said 'All photos analyzed!' over
 * photos just uploaded and never showed the smart albums their analysis made.
 */
export function refreshLibrary(qc: QueryClient) {
  return Promise.all([
    qc.invalidateQueries({ queryKey: photosQueryOptions().queryKey }),
    qc.invalidateQueries({ queryKey: ['/api/photos/analysis-status'] }),
    qc.invalidateQueries({ queryKey: ['/api/albums'] }),
  ]);
}
