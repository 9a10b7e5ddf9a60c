import type { Stats } from '@contract/rewards';
import { utcOffsetMinutesOf } from '@domain/calendar';
import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { getQueryFn } from '../../lib/api';
import { useLocalDay } from '../../lib/use-local-day';

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

/**
 * The stats, asked again at the browser's midnight: the answer's last 7 days end today, and the
 * query never goes stale, so a screen left open over midnight showed yesterday's week (today's
 * points under yesterday's bar, and no bar for today) until something else refreshed it.
 */
export function useStats() {
  const qc = useQueryClient();
  const day = useLocalDay();
  const shownDay = useRef(day);
  useEffect(() => {
    if (day === shownDay.current) return;
    shownDay.current = day;
    void qc.invalidateQueries({ queryKey: statsQueryOptions().queryKey });
  }, [day, qc]);
  return useQuery(statsQueryOptions());
}
