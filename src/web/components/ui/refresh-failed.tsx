import type { QueryObserverResult } from '@tanstack/react-query';
import { useEffect, useRef, type RefObject } from 'react';
import { errorMessage } from '../../lib/api';
import { Button } from './button';

type Refreshed = Pick<QueryObserverResult, 'error' | 'errorUpdateCount' | 'isError' | 'isFetching' | 'refetch'>;

/**
 * Try again for a refresh that was refused while an earlier answer is still shown. Once it is
 * answered, focus moves to `target` (what it brought), not to the page's start: the pressed
 * button goes with the refusal.
 */
export function useRetryRefresh(query: Refreshed, target: RefObject<HTMLElement | null>) {
  const retried = useRef(false);
  useEffect(() => {
    if (!retried.current || query.isFetching) return;
    retried.current = false;
    if (!query.isError) target.current?.focus();
  }, [query.isFetching, query.isError, target]);
  return () => {
    retried.current = true;
    void query.refetch();
  };
}

/**
 * Says that what is shown may be behind (the refresh refused: the per-user limit, the network),
 * with the server's reason, and offers Try again (`useRetryRefresh`).
 */
export function RefreshFailed({ query, what, onRetry }: { query: Refreshed; what: string; onRetry: () => void }) {
  return (
    <div className="flex flex-col items-center gap-2 py-2 text-center">
      {/* Keyed by the refusal: the same words refused again are read out again. */}
      <p key={query.errorUpdateCount} role="alert" className="text-sm text-danger">
        {`Could not refresh ${what}. ${errorMessage(query.error, '')}`.trim()}
      </p>
      <Button variant="outline" size="sm" pending={query.isFetching} onClick={onRetry}>
        Try again
      </Button>
    </div>
  );
}
