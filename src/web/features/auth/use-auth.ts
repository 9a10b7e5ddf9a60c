import type { User } from '@contract/auth';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useLocation } from 'wouter';
import { apiRequest, getQueryFn } from '../../lib/api';

export const userQueryOptions = () =>
  queryOptions({
    queryKey: ['/api/auth/user'],
    queryFn: getQueryFn<{ user: User } | null>({ on401: 'returnNull' }),
    retry: false,
    staleTime: 0,
  });

export function useAuth() {
  const { data, isLoading } = useQuery(userQueryOptions());
  return { user: data?.user ?? null, isLoading, isAuthenticated: !!data?.user };
}

export function useLogout() {
  const qc = useQueryClient();
  const [, navigate] = useLocation();
  return useMutation({
    mutationFn: () => apiRequest('POST', '/api/auth/logout'),
    onSuccess: () => {
      const userKey = userQueryOptions().queryKey;
      qc.setQueryData(userKey, null);
      // Drop every other cached answer of the old user, so the next account never sees them.
      qc.removeQueries({ predicate: (q) => q.queryKey[0] !== userKey[0] });
      // The service worker's thumbnail cache belongs to this account too.
      if (typeof caches !== 'undefined') void caches.delete('eyevu-thumbnails').catch(() => {});
      navigate('/login');
    },
    onError: (err) => console.error('Logout failed', err),
  });
}
