import type { PublicConfig } from '@contract/subscriptions';
import { queryOptions, useQuery } from '@tanstack/react-query';

/** GET /api/config: the publishable key arrives at run time (null: payments not configured). */
export const publicConfigQueryOptions = () => queryOptions<PublicConfig>({ queryKey: ['/api/config'] });

export const usePublicConfig = () => useQuery(publicConfigQueryOptions());
