import type { Activity } from '@contract/activities';
import { queryOptions, useQuery } from '@tanstack/react-query';

/** `GET /api/activities`, newest first. After POST /api/activities invalidate this and stats. */
export const activitiesQueryOptions = () => queryOptions<Activity[]>({ queryKey: ['/api/activities'] });

export const useActivities = () => useQuery(activitiesQueryOptions());
