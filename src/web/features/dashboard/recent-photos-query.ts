import type { Photo } from '@contract/photos';
import { photosOrganized } from '@domain/insights';
import { useQuery } from '@tanstack/react-query';
import { photoSummaryQueryOptions, photosQueryOptions } from '../gallery';

/** One empty list while loading, so a memoised screen sees the same value each render. */
const NO_PHOTOS: Photo[] = [];

/**
 * The newest photos (the gallery's query, so an upload refreshes the dashboard too) plus counts over
 * the whole library: the list is bounded, so totals come from the summary (the list's own counts
 * only until it has loaded).
 */
export function useDashboardPhotos() {
  const q = useQuery(photosQueryOptions());
  const summaryQuery = useQuery(photoSummaryQueryOptions());
  const summary = summaryQuery.data;
  const photos = Array.isArray(q.data) ? q.data : NO_PHOTOS;
  return {
    ...q,
    /** Until both the list and the counts have an answer (or an error). */
    isPending: q.isPending || summaryQuery.isPending,
    photos,
    total: summary?.total ?? photos.length,
    analyzed: summary?.analyzed ?? photos.filter((p) => p.analyzed).length,
    organized: summary?.organized ?? photosOrganized(photos),
  };
}
