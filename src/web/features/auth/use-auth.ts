import type { User } from '@contract/auth';
import { queryOptions, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useLocation } from 'wouter';
import { apiRequest, getQueryFn } from '../../lib/api';

/**
 * The server serves a page without a session cookie with `<meta name="eyevu-session"
 * content="none">` (web-pages.ts): no session can exist, so the auth check answers null without
 * asking, instead of a 401 that every browser reports as an error in the console on each visit.
 * Until the next sign-in or registration in this page; a sign-out sets it again.
 */
let signedOut =
  typeof document !== 'undefined' &&
  document.querySelector('meta[name="eyevu-session"]')?.getAttribute('content') === 'none';

const askServer = getQueryFn<{ user: User } | null>({ on401: 'returnNull' });

export const userQueryOptions = () =>
  queryOptions({
    queryKey: ['/api/auth/user'],
    queryFn: (ctx) => (signedOut ? null : askServer(ctx)),
    retry: false,
    staleTime: 0,
  });

/** After a sign-in or registration: the session cookie is set, so the auth check asks again. */
export async function sessionStarted(qc: QueryClient) {
  signedOut = false;
  await qc.invalidateQueries({ queryKey: userQueryOptions().queryKey });
}

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
      signedOut = true;
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
