import { infiniteQueryOptions, type QueryKey } from '@tanstack/react-query';
import type { TimelinePage } from '@contract/find';
import type { CategoryResult } from '@domain/photo-categories';
import { getJson } from '../../lib/api';

/** Photos per page of a category: a screenful of the 4-column grid several times over, within the server's 200. */
export const CATEGORY_PAGE_SIZE = 100;

/** The start of every category's key: the poll that follows an analysis leaves these out (`isCategoryPagesKey`). */
const CATEGORY_PAGES = 'category-pages';

/**
 * One category's photos (`GET /api/photos/timeline?category=`), newest taken first, page by page:
 * the organizer's plain list is the newest 200 photos only, so 'View All N Photos' reads the N
 * from here. Its key starts with '/api/photos', so uploads and deletes refresh it.
 */
export function categoryPagesQueryOptions(category: CategoryResult, pageSize = CATEGORY_PAGE_SIZE) {
  return infiniteQueryOptions({
    queryKey: ['/api/photos', CATEGORY_PAGES, category, pageSize],
    initialPageParam: null as string | null,
    queryFn: async ({ pageParam, signal }): Promise<TimelinePage> => {
      const qs = new URLSearchParams({ limit: String(pageSize), category });
      if (pageParam) qs.set('cursor', pageParam);
      return getJson<TimelinePage>(`/api/photos/timeline?${qs}`, { signal });
    },
    getNextPageParam: (last) => last.nextCursor,
  });
}

export const isCategoryPagesKey = (key: QueryKey) => key[1] === CATEGORY_PAGES;
