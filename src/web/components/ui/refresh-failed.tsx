import type { QueryObserverResult } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, type RefObject } from 'react';
import { errorMessage } from '../../lib/api';
import { cn } from '../../lib/cn';
import { Button } from './button';

type Refreshed = Pick<QueryObserverResult, 'error' | 'errorUpdateCount' | 'isError' | 'isFetching' | 'refetch'>;

/**
 * Try again for a refresh that was refused while an earlier answer is still shown. Once it is
 * answered, focus moves to `target` (what it brought), not to the page's start: the pressed
 * button goes with the refusal. Only from there: a user who went on to a photo, a field or a
 * dialog meanwhile was pulled back to `target` when the answer came.
 */
export function useRetryRefresh(query: Refreshed, target: RefObject<HTMLElement | null>) {
  const retried = useRef(false);
  useEffect(() => {
    if (!retried.current || query.isFetching) return;
    retried.current = false;
    const at = document.activeElement;
    if (!query.isError && (at === null || at === document.body)) target.current?.focus();
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

type Read = Pick<QueryObserverResult, 'error' | 'errorUpdateCount' | 'isFetching' | 'refetch'>;

/** What `LoadFailed` needs of a query, kept as one object while those fields stay the same. */
export function useReadRetry({ error, errorUpdateCount, isFetching, refetch }: Read): Read {
  return useMemo(
    () => ({ error, errorUpdateCount, isFetching, refetch }),
    [error, errorUpdateCount, isFetching, refetch],
  );
}

/**
 * A first read that failed (refused, or given up after READ_WAIT_MS on a dead connection): says why
 * and offers Try again, where leaving the screen and coming back was the only way to ask again. The
 * block goes when the answer comes, and its button with it, so focus then moves to `target` (the
 * card that now shows the answer, kept on screen throughout) unless the user has gone elsewhere
 * meanwhile; refused again, focus stays on the button and the refusal is read out again.
 */
export function LoadFailed({
  query,
  fallback,
  target,
  className,
  inline = false,
}: {
  query: Read;
  fallback: string;
  target: RefObject<HTMLElement | null>;
  className?: string;
  /**
   * The reason beside its button, in the button's height while the words fit two lines: for a
   * slot that keeps one control's height whatever its read did (Settings' plan link).
   */
  inline?: boolean;
}) {
  const button = useRef<HTMLButtonElement>(null);
  const retry = () => {
    void query.refetch().then((answer) => {
      if (answer.isError) return;
      const at = document.activeElement;
      if (at === button.current || at === null || at === document.body) target.current?.focus();
    });
  };
  return (
    <div className={cn(inline ? 'flex items-center gap-3' : 'flex flex-col items-start gap-2', className)}>
      {/* Keyed by the refusal: the same words refused again are read out again. */}
      <p key={query.errorUpdateCount} role="alert" className={cn('text-sm text-danger', inline && 'min-w-0 flex-1')}>
        {errorMessage(query.error, fallback)}
      </p>
      <Button
        ref={button}
        variant="outline"
        size="sm"
        className={inline ? 'shrink-0' : undefined}
        pending={query.isFetching}
        onClick={retry}
      >
        Try again
      </Button>
    </div>
  );
}
