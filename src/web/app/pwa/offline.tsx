import { useQueryClient, type Query, type QueryClient } from '@tanstack/react-query';
import { WifiOff } from 'lucide-react';
import { useCallback, useSyncExternalStore } from 'react';
import { Button } from '../../components/ui/button';

/** `fetch` rejects with a TypeError when the request never reached the server. */
export const isNetworkError = (err: unknown) => err instanceof TypeError;

const isOffline = () => typeof navigator !== 'undefined' && navigator.onLine === false;

/**
 * A query in use that has no data because the network is down: either paused by TanStack Query
 * (it knows it is offline) or failed with a network error while the browser reports offline.
 */
export function isMissingOfflineData(q: Query): boolean {
  if (q.getObserversCount() === 0 || q.state.data !== undefined) return false;
  if (q.state.fetchStatus === 'paused') return true;
  return q.state.status === 'error' && isNetworkError(q.state.error) && isOffline();
}

const anyMissing = (qc: QueryClient) => qc.getQueryCache().getAll().some(isMissingOfflineData);

/** True while some data the screen needs cannot be loaded because the app is offline. */
export function useOfflineWithoutData(): boolean {
  const qc = useQueryClient();
  const subscribe = useCallback(
    (onChange: () => void) => {
      const unsubscribe = qc.getQueryCache().subscribe(onChange);
      window.addEventListener('online', onChange);
      window.addEventListener('offline', onChange);
      return () => {
        unsubscribe();
        window.removeEventListener('online', onChange);
        window.removeEventListener('offline', onChange);
      };
    },
    [qc],
  );
  return useSyncExternalStore(subscribe, () => anyMissing(qc));
}

/** Shown in place of a screen whose data is not available offline. */
export function OfflineScreen() {
  const qc = useQueryClient();
  const retry = () =>
    void qc.refetchQueries({
      predicate: (q) => q.getObserversCount() > 0 && (q.state.status === 'error' || q.state.fetchStatus === 'paused'),
    });
  return (
    <main
      className="flex flex-1 flex-col items-center justify-center gap-3 p-6 text-center"
      data-testid="offline-screen"
    >
      <WifiOff className="size-10 text-muted" aria-hidden />
      <h1 className="text-xl font-bold">You&apos;re offline</h1>
      <p className="max-w-72 text-sm text-muted">
        This needs a connection. Photos you have already seen stay available; try again when you are back online.
      </p>
      <Button onClick={retry}>Try again</Button>
    </main>
  );
}
