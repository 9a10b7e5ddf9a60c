import type { Stats } from '@contract/rewards';
import { utcOffsetMinutesOf } from '@domain/calendar';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { getQueryFn } from '../../lib/api';

/** `GET /api/stats` with the browser's offset, so the 7-day chart buckets by local day. */
export const statsQueryOptions = () =>
  queryOptions<Stats>({
    queryKey: ['/api/stats'],
    queryFn: (ctx) =>
      getQueryFn<Stats>({ on401: 'throw' })({
        ...ctx,
        queryKey: [`/api/stats?utcOffsetMinutes=${utcOffsetMinutesOf(new Date())}`],
      }),
  });

export const useStats = () => useQuery(statsQueryOptions());
