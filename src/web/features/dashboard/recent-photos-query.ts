import type { Photo } from '@contract/photos';
import { queryOptions, useQuery } from '@tanstack/react-query';

/**
 * `GET /api/photos` (the whole list, spec section 7). Same key the gallery uses, so an upload's
 * invalidation refreshes the dashboard too.
 */
export const dashboardPhotosQueryOptions = () => queryOptions<Photo[]>({ queryKey: ['/api/photos'] });

export function useDashboardPhotos() {
  const q = useQuery(dashboardPhotosQueryOptions());
  return { ...q, photos: Array.isArray(q.data) ? q.data : [] };
}
