import type { User } from '@contract/auth';
import { SIGNED_OUT_COOKIE } from '@contract/auth-values';
import { queryOptions, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useLocation } from 'wouter';
import { forgetFirstPaint, forgetFirstPaintPictures } from '../../app/first-paint';
import { apiRequest, errorStatus, getQueryFn } from '../../lib/api';

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

/**
 * For a request sent outside the query and mutation caches (the heartbeat, the daily login), whose
 * 401 the cache watch in `forgetAnswersOnAccountChange` does not see: asks who is signed in.
 */
export function recheckSessionOn401(qc: QueryClient, error: unknown) {
  if (errorStatus(error) === 401)
    void qc.invalidateQueries({ queryKey: userQueryOptions().queryKey }, { cancelRefetch: false });
}

export function useAuth() {
  const { data, isLoading } = useQuery(userQueryOptions());
  return { user: data?.user ?? null, isLoading, isAuthenticated: !!data?.user };
}

/**
 * Every other cached answer, the service worker's thumbnails and the first screen the server
 * painted at load: they belong to the account that asked. The painted copy is dropped by its
 * screen once its answers arrive, but a screen left before then kept it, and the next account's
 * same screen showed it (the last one's name, points and photo names) while its own answers came.
 */
function forgetAccountAnswers(qc: QueryClient) {
  const userKey = userQueryOptions().queryKey;
  forgetFirstPaint();
  forgetFirstPaintPictures();
  qc.removeQueries({ predicate: (q) => q.queryKey[0] !== userKey[0] });
  if (typeof caches !== 'undefined') void caches.delete('eyevu-thumbnails').catch(() => {});
}

/**
 * Drops the cached answers whenever the signed-in account changes under this tab (answers are
 * cached for good and their keys do not name the account): a session ended elsewhere (another
 * tab's Log out, expiry, a reset) leaves this tab on the login screen, and the next account to
 * sign in here saw the last one's photos, counts and albums. The first account seen is kept (the
 * page's own answers were asked for it). Answers the unsubscribe.
 */
export function forgetAnswersOnAccountChange(qc: QueryClient): () => void {
  const userKey = userQueryOptions().queryKey;
  let seen: string | null | undefined;
  const unsubscribe = qc.getQueryCache().subscribe((event) => {
    if (event.type !== 'updated' || event.query.queryKey[0] !== userKey[0]) return;
    const data = event.query.state.data as { user: User } | null | undefined;
    if (data === undefined) return;
    const id = data?.user.id ?? null;
    if (seen !== undefined && id !== seen) forgetAccountAnswers(qc);
    seen = id;
  });
  // A tab asks who is signed in only when a screen that reads it mounts, so after a Log out in
  // another tab this one went on showing the account's library, albums and billing from its
  // cache (and its images from the browser's) to whoever came to it next. Whenever the tab is
  // shown or focused again: the signed-out mark, one cookie for every tab, is read (no request);
  // without it the server is asked, since a sign-in in another tab clears the mark and may be
  // another account's (the answer then differs from `seen`, and the cache goes).
  const recheck = () => {
    if (knownSignedOut()) {
      if (seen) qc.setQueryData(userKey, null);
      return;
    }
    void qc.invalidateQueries({ queryKey: userKey });
  };
  // A session can also end while this tab is in use (it expired, or a password reset on another
  // device ended every session): each later request answers 401 while the tab, asking no one who
  // is signed in, went on showing the account's cached screens with errors and failing toasts.
  // The first 401 of a signed-in tab asks again (joining a check already on its way), and the
  // answer takes it to the login screen, forgetting the answers.
  const onUnauthorized = (error: unknown) => {
    if (seen && errorStatus(error) === 401) void qc.invalidateQueries({ queryKey: userKey }, { cancelRefetch: false });
  };
  const stopQueryErrors = qc.getQueryCache().subscribe((event) => {
    if (event.type === 'updated' && event.action.type === 'error') onUnauthorized(event.action.error);
  });
  const stopMutationErrors = qc.getMutationCache().subscribe((event) => {
    if (event.type === 'updated' && event.action.type === 'error') onUnauthorized(event.action.error);
  });
  const onVisibility = () => {
    if (document.visibilityState !== 'hidden') recheck();
  };
  document.addEventListener('visibilitychange', onVisibility);
  window.addEventListener('focus', recheck);
  window.addEventListener('pageshow', recheck);
  return () => {
    unsubscribe();
    stopQueryErrors();
    stopMutationErrors();
    document.removeEventListener('visibilitychange', onVisibility);
    window.removeEventListener('focus', recheck);
    window.removeEventListener('pageshow', recheck);
  };
}

export function useLogout() {
  const qc = useQueryClient();
  const [, navigate] = useLocation();
  return useMutation({
    mutationFn: () => apiRequest('POST', '/api/auth/logout'),
    onSuccess: async () => {
      // A check of who is signed in read before the sign-out (coming back to the tab asks one)
      // and answered after it drew the account's screens again, until their requests' 401s.
      await qc.cancelQueries({ queryKey: userQueryOptions().queryKey });
      qc.setQueryData(userQueryOptions().queryKey, null);
      // Also done by forgetAnswersOnAccountChange when it watches this client (the app's does).
      forgetAccountAnswers(qc);
      navigate('/login');
    },
    onError: (err) => console.error('Logout failed', err),
  });
}
