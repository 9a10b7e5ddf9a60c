import type { User } from '@contract/auth';
import { SIGNED_OUT_COOKIE } from '@contract/auth-values';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useLocation } from 'wouter';
import { apiRequest, getQueryFn } from '../../lib/api';

const askServer = getQueryFn<{ user: User } | null>({ on401: 'returnNull' });

/** The server's mark that this browser has no session (auth-values.ts), read at each check. */
const knownSignedOut = () => document.cookie.split(/;\s*/).includes(`${SIGNED_OUT_COOKIE}=1`);

export const userQueryOptions = () =>
  queryOptions({
    queryKey: ['/api/auth/user'],
    queryFn: (ctx) => (knownSignedOut() ? null : askServer(ctx)),
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
