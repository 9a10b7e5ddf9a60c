import type { Photo } from '@contract/photos';
import { photosOrganized } from '@domain/insights';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { photoSummaryQueryOptions } from '../gallery/photos-query';

/**
 * `GET /api/photos` (spec section 7; the newest photos, bounded by the server). Same key the
 * gallery uses, so an upload's invalidation refreshes the dashboard too.
 */
export const dashboardPhotosQueryOptions = () => queryOptions<Photo[]>({ queryKey: ['/api/photos'] });

/**
 * The recent photos plus counts over the whole library: the list is bounded, so totals come
 * from the summary (the list's own counts only until it has loaded).
 */
export function useDashboardPhotos() {
  const q = useQuery(dashboardPhotosQueryOptions());
  const summary = useQuery(photoSummaryQueryOptions()).data;
  const photos = Array.isArray(q.data) ? q.data : [];
  return {
    ...q,
    photos,
    total: summary?.total ?? photos.length,
    analyzed: summary?.analyzed ?? photos.filter((p) => p.analyzed).length,
    organized: summary?.organized ?? photosOrganized(photos),
  };
}
