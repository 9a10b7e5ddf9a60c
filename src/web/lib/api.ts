import { QueryClient, type QueryFunction } from '@tanstack/react-query';
import { noteServerDate } from './server-clock';

/** A failed response becomes `Error("<status>: <body text or status text>")`. */
export async function throwIfResNotOk(res: Response) {
  if (!res.ok) {
    const text = (await res.text()) || res.statusText;
    throw new Error(`${res.status}: ${text}`);
  }
}

/**
 * How long a request sent by `apiRequest` waits for its answer before it fails as a lost
 * connection ('Network error. Please try again.'). Every write the app sends answers in well under
 * a second when the server is healthy (a filter apply of the largest photo in a few), and the
 * server drops a connection silent for 60 s itself, so a request still unanswered here is on a
 * connection that died without the browser noticing (a phone between networks, a half-open TCP
 * connection) or held by a proxy: without a bound its button stayed pending for ever. Uploads go
 * by XMLHttpRequest with their own progress and are not bounded by it.
 */
export const REQUEST_WAIT_MS = 30_000;
/**
 * The wait for a request the server answers only after the payment provider has (a cancel, a
 * checkout's subscription): its client allows 20 s a try and retries, so a slow provider may keep
 * a healthy server past REQUEST_WAIT_MS. Past the server's own 60 s silence bound, so no answer it
 * can still give is cut here (a cancel said to have failed that went through).
 */
export const PAYMENT_WAIT_MS = 65_000;

/**
 * How long a read (a screen's GET) waits for its whole answer before it fails as a lost connection.
 * Without a bound, a first screen on a dead connection (a phone's half-open TCP connection, a proxy
 * holding the request) showed its skeleton or 'Loading...' for as long as the browser kept the
 * request, minutes, with no error and no Try again. Reads answer in well under a second on a
 * healthy server; the few that may not wait SLOW_READ_WAIT_MS instead (`meta: slowRead`).
 */
export const READ_WAIT_MS = REQUEST_WAIT_MS;
/**
 * For reads a healthy server may take long over: "Possible duplicates" and "Similar photos" make
 * the fingerprints still missing (100 photos' thumbnails a request) and the invoices ask Stripe (20 s
 * a try, retried). Past the server's own 60 s silence bound, so no answer it can give is cut.
 */
export const SLOW_READ_WAIT_MS = PAYMENT_WAIT_MS;
/** A query's `meta` that gives its default query function SLOW_READ_WAIT_MS. */
export const slowRead = { waitMs: SLOW_READ_WAIT_MS } as const;

/**
 * `fetch` given up after `waitMs` with a TypeError, as fetch's own network failures are, so every
 * caller words it as one ('Network error. Please try again.'). `read` runs under the same bound, so
 * a body that stops arriving half-way is given up too. A caller's own `signal` (TanStack's, when a
 * query is cancelled) still aborts as itself.
 */
async function fetchWithin<T>(
  url: string,
  init: RequestInit,
  waitMs: number,
  read: (res: Response) => Promise<T>,
): Promise<T> {
  const giveUp = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    giveUp.abort();
  }, waitMs);
  const caller = init.signal;
  const passOn = () => giveUp.abort(caller?.reason);
  if (caller?.aborted) passOn();
  else caller?.addEventListener('abort', passOn);
  try {
    const res = await fetch(url, { ...init, signal: giveUp.signal });
    noteServerDate(res);
    return await read(res);
  } catch (err) {
    if (timedOut) throw new TypeError(`No answer within ${waitMs} ms`, { cause: err });
    throw err;
  } finally {
    clearTimeout(timer);
    caller?.removeEventListener('abort', passOn);
  }
}

export async function apiRequest(
  method: string,
  url: string,
  data?: unknown,
  headers: Record<string, string> = {},
  { waitMs = REQUEST_WAIT_MS }: { waitMs?: number } = {},
) {
  return fetchWithin(
    url,
    {
      method,
      headers: data !== undefined ? { 'Content-Type': 'application/json', ...headers } : headers,
      body: data !== undefined ? JSON.stringify(data) : undefined,
      credentials: 'include',
    },
    waitMs,
    async (res) => {
      await throwIfResNotOk(res);
      return res;
    },
  );
}

/**
 * A GET's JSON, read within READ_WAIT_MS (or `waitMs`); a failed status throws as
 * `throwIfResNotOk` does, a 401 answers null when `on401` is 'returnNull'.
 */
export function getJson<T>(
  url: string,
  {
    signal,
    waitMs = READ_WAIT_MS,
    on401 = 'throw',
  }: { signal?: AbortSignal; waitMs?: number; on401?: UnauthorizedBehavior } = {},
): Promise<T> {
  return fetchWithin(url, { credentials: 'include', signal }, waitMs, async (res) => {
    if (on401 === 'returnNull' && res.status === 401) return null as T;
    await throwIfResNotOk(res);
    return (await res.json()) as T;
  });
}

/**
 * The server answers errors as JSON `{message}`; forms show that message. Falls back to the text
 * after the status when the body is not JSON, unless that text is a page (a proxy's or gateway's
 * HTML error page while the server is down or restarting), which would show as markup in a toast.
 */
export function errorMessage(err: unknown, fallback: string): string {
  if (!(err instanceof Error)) return fallback;
  if (err instanceof TypeError) return 'Network error. Please try again.';
  const m = /^\d{3}: ([\s\S]*)$/.exec(err.message);
  if (!m) return fallback;
  try {
    const body = JSON.parse(m[1]!) as { message?: unknown };
    return typeof body.message === 'string' && body.message ? body.message : fallback;
  } catch {
    const text = m[1]!.trim();
    return text && !text.startsWith('<') ? text : fallback;
  }
}

/**
 * The status a failed request was answered with; for an error wrapping one (a delete that failed
 * part way, `PartlyDeleted`), that of its `cause`: its 401 went unseen by the session check.
 */
export const errorStatus = (err: unknown): number | undefined => {
  for (let depth = 0; err instanceof Error && depth < 4; depth++, err = err.cause) {
    const m = /^(\d{3}):/.exec(err.message);
    if (m) return Number(m[1]);
  }
  return undefined;
};

/** The JSON object a failed response's body held, if it held one (the server's own refusals do). */
function errorBody(err: unknown): Record<string, unknown> | undefined {
  const m = err instanceof Error ? /^\d{3}: ([\s\S]*)$/.exec(err.message) : null;
  if (!m) return undefined;
  try {
    const body: unknown = JSON.parse(m[1]!);
    return body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The `code` of the server's JSON error body, if it has one. */
export const errorCode = (err: unknown): string | undefined => {
  const code = errorBody(err)?.code;
  return typeof code === 'string' ? code : undefined;
};

/**
 * Whether a failed write may have been carried out all the same. True when no answer came (a
 * TypeError: the network, the client's wait) and when something in front of the server answered in
 * its place: a gateway's 502 or 504 (its connection to the server lost or timed out, maybe after
 * the server acted), or a 5xx without the server's JSON `{message}` (a proxy's or CDN's error page).
 * The server's own refusals carry that body and undo what they began.
 */
export function outcomeUnknown(err: unknown): boolean {
  if (err instanceof TypeError) return true;
  const status = err instanceof Error ? /^(\d{3}):/.exec(err.message)?.[1] : undefined;
  if (status === undefined || Number(status) < 500) return false;
  return status === '502' || status === '504' || typeof errorBody(err)?.message !== 'string';
}

type UnauthorizedBehavior = 'returnNull' | 'throw';
/** A query's `meta.waitMs` (`slowRead`) lengthens its READ_WAIT_MS. */
export const getQueryFn =
  <T>({ on401 }: { on401: UnauthorizedBehavior }): QueryFunction<T> =>
  ({ queryKey, meta }) =>
    getJson<T>(queryKey.join('/'), {
      on401,
      waitMs: typeof meta?.waitMs === 'number' ? meta.waitMs : READ_WAIT_MS,
    });

export function createQueryClient() {
  return new QueryClient({
    defaultOptions: {
      queries: {
        queryFn: getQueryFn({ on401: 'throw' }),
        refetchInterval: false,
        refetchOnWindowFocus: false,
        staleTime: Infinity,
        retry: false,
      },
      // TanStack's default ('online') holds a mutation while the browser says it is offline and
      // sends it when the connection is back: the pressed button said 'Signing in...' or
      // 'Processing...' with no word and no way out (the cancel dialog cannot close while
      // pending), and the request went minutes later, unasked. Each press is answered now instead;
      // a write that must wait for the connection says so (the ad break's recording).
      mutations: { retry: false, networkMode: 'always' },
    },
  });
}
