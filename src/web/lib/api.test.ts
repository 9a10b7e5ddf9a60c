import { QueryClient } from '@tanstack/react-query';
import {
  apiRequest,
  createQueryClient,
  errorMessage,
  getJson,
  getQueryFn,
  outcomeUnknown,
  PAYMENT_WAIT_MS,
  READ_WAIT_MS,
  REQUEST_WAIT_MS,
  SLOW_READ_WAIT_MS,
  slowRead,
} from './api';

describe('api client', () => {
  const fetchMock = vi.fn();
  beforeEach(() => {
    fetchMock.mockReset();
    vi.stubGlobal('fetch', fetchMock);
  });
  afterEach(() => vi.unstubAllGlobals());

  it('sends JSON with credentials and throws "<status>: <body>" on failure', async () => {
    fetchMock.mockResolvedValue(new Response('{"message":"Invalid email or password"}', { status: 401 }));
    await expect(apiRequest('POST', '/api/auth/login', { email: 'a' })).rejects.toThrow(
      '401: {"message":"Invalid email or password"}',
    );
    expect(fetchMock).toHaveBeenCalledWith('/api/auth/login', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"email":"a"}',
      credentials: 'include',
      signal: expect.any(AbortSignal),
    });
  });

  it('uses the status text when the body is empty', async () => {
    fetchMock.mockResolvedValue(new Response('', { status: 503, statusText: 'Service Unavailable' }));
    await expect(apiRequest('GET', '/x')).rejects.toThrow('503: Service Unavailable');
  });

  it('builds the GET path from the query key joined by slashes', async () => {
    fetchMock.mockResolvedValue(Response.json({ ok: 1 }));
    const fn = getQueryFn<{ ok: number }>({ on401: 'throw' });
    const ctx = { queryKey: ['/api/photos', 'abc'], signal: new AbortController().signal, meta: undefined };
    await expect(fn(ctx as never)).resolves.toEqual({ ok: 1 });
    expect(fetchMock).toHaveBeenCalledWith('/api/photos/abc', {
      credentials: 'include',
      signal: expect.any(AbortSignal),
    });
  });

  it('returns null on 401 only when asked to', async () => {
    fetchMock.mockResolvedValue(new Response('', { status: 401, statusText: 'Unauthorized' }));
    const ctx = { queryKey: ['/api/auth/user'], signal: new AbortController().signal, meta: undefined };
    await expect(getQueryFn({ on401: 'returnNull' })(ctx as never)).resolves.toBeNull();
    await expect(getQueryFn({ on401: 'throw' })(ctx as never)).rejects.toThrow('401: Unauthorized');
  });

  it('never goes stale, never refetches on focus, never retries', () => {
    const q = createQueryClient().getDefaultOptions();
    expect(q.queries).toMatchObject({
      staleTime: Infinity,
      refetchOnWindowFocus: false,
      retry: false,
      refetchInterval: false,
    });
    expect(q.mutations).toMatchObject({ retry: false });
  });

  it('pulls the server message out of an error, with fallbacks', () => {
    expect(errorMessage(new Error('409: {"message":"Taken"}'), 'x')).toBe('Taken');
    expect(errorMessage(new Error('500: '), 'Fallback')).toBe('Fallback');
    expect(errorMessage(new TypeError('Failed to fetch'), 'x')).toBe('Network error. Please try again.');
    // A proxy's error page while the server restarts is not a message to show.
    const gatewayPage =
      '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body><center><h1>502 Bad Gateway</h1></center></body></html>';
    expect(errorMessage(new Error(`502: ${gatewayPage}`), 'Invalid email or password')).toBe(
      'Invalid email or password',
    );
    expect(errorMessage(new Error('503: Service Unavailable'), 'x')).toBe('Service Unavailable');
  });

  describe('a request the server never answers (a proxy holding it, a connection dead unnoticed)', () => {
    // As the browser's fetch does: no answer, until the request is aborted.
    const hang = (_url: string, init?: RequestInit) =>
      new Promise<Response>((_, reject) =>
        init?.signal?.addEventListener('abort', () => reject(new DOMException('Aborted', 'AbortError'))),
      );
    beforeEach(() => vi.useFakeTimers());
    afterEach(() => vi.useRealTimers());

    it('fails as a lost connection after REQUEST_WAIT_MS, not before', async () => {
      fetchMock.mockImplementation(hang);
      const settled = vi.fn();
      void apiRequest('POST', '/api/auth/login', { email: 'a' }).catch((err: unknown) => {
        settled(err);
      });
      await vi.advanceTimersByTimeAsync(REQUEST_WAIT_MS - 1);
      expect(settled).not.toHaveBeenCalled();
      await vi.advanceTimersByTimeAsync(1);
      expect(settled).toHaveBeenCalledTimes(1);
      expect(errorMessage(settled.mock.calls[0]![0], 'Invalid email or password')).toBe(
        'Network error. Please try again.',
      );
    });

    it('waits longer when asked (a request answered after the payment provider)', async () => {
      fetchMock.mockImplementation(hang);
      const settled = vi.fn();
      void apiRequest('POST', '/api/subscription/cancel', undefined, {}, { waitMs: PAYMENT_WAIT_MS }).catch(settled);
      await vi.advanceTimersByTimeAsync(REQUEST_WAIT_MS + 1);
      expect(settled).not.toHaveBeenCalled();
      await vi.advanceTimersByTimeAsync(PAYMENT_WAIT_MS - REQUEST_WAIT_MS);
      expect(errorMessage(settled.mock.calls[0]![0], 'x')).toBe('Network error. Please try again.');
    });

    it("gives a screen's read up after READ_WAIT_MS, so its error and Try again show", async () => {
      fetchMock.mockImplementation(hang);
      const qc = new QueryClient({ defaultOptions: createQueryClient().getDefaultOptions() });
      const read = qc.fetchQuery({ queryKey: ['/api/stats'] });
      const settled = vi.fn();
      read.catch(settled);
      await vi.advanceTimersByTimeAsync(READ_WAIT_MS - 1);
      expect(settled).not.toHaveBeenCalled();
      await vi.advanceTimersByTimeAsync(1);
      expect(errorMessage(settled.mock.calls[0]![0], 'x')).toBe('Network error. Please try again.');
      // Failed, not tried again behind the user's back.
      expect(fetchMock).toHaveBeenCalledTimes(1);
      expect(qc.getQueryState(['/api/stats'])?.status).toBe('error');
    });

    it('waits SLOW_READ_WAIT_MS for a read marked slow (duplicates, similar photos, invoices)', async () => {
      fetchMock.mockImplementation(hang);
      const qc = new QueryClient({ defaultOptions: createQueryClient().getDefaultOptions() });
      const settled = vi.fn();
      qc.fetchQuery({ queryKey: ['/api/photos', 'duplicates'], meta: slowRead }).catch(settled);
      await vi.advanceTimersByTimeAsync(SLOW_READ_WAIT_MS - 1);
      expect(settled).not.toHaveBeenCalled();
      await vi.advanceTimersByTimeAsync(1);
      expect(errorMessage(settled.mock.calls[0]![0], 'x')).toBe('Network error. Please try again.');
    });

    it('gives up on an answer whose body stops arriving half-way', async () => {
      let send!: ReadableStreamDefaultController<Uint8Array>;
      fetchMock.mockImplementation((_url: string, init?: RequestInit) => {
        const body = new ReadableStream<Uint8Array>({ start: (c) => void (send = c) });
        init?.signal?.addEventListener('abort', () => send.error(new DOMException('Aborted', 'AbortError')));
        return Promise.resolve(new Response(body, { status: 200 }));
      });
      const settled = vi.fn();
      getJson('/api/photos/timeline').catch(settled);
      await vi.advanceTimersByTimeAsync(0);
      send.enqueue(new TextEncoder().encode('{"items":['));
      await vi.advanceTimersByTimeAsync(READ_WAIT_MS);
      expect(errorMessage(settled.mock.calls[0]![0], 'x')).toBe('Network error. Please try again.');
    });

    it("a read cancelled by its caller fails as the caller's cancel, not as a lost connection", async () => {
      fetchMock.mockImplementation(hang);
      const cancel = new AbortController();
      const settled = vi.fn();
      getJson('/api/photos/timeline', { signal: cancel.signal }).catch(settled);
      await vi.advanceTimersByTimeAsync(0);
      cancel.abort();
      await vi.advanceTimersByTimeAsync(0);
      expect(settled.mock.calls[0]![0]).not.toBeInstanceOf(TypeError);
      expect(vi.getTimerCount()).toBe(0);
    });

    it('leaves no timer behind once answered', async () => {
      fetchMock.mockResolvedValue(Response.json({ ok: 1 }));
      await apiRequest('POST', '/api/photos/analyze-all');
      expect(vi.getTimerCount()).toBe(0);
    });
  });
});

describe('outcomeUnknown', () => {
  it.each([
    ['no answer', new TypeError('Failed to fetch'), true],
    ["a gateway's 502 page", new Error('502: <html><title>502 Bad Gateway</title></html>'), true],
    ["a gateway's 504, even in JSON", new Error('504: {"message":"The upstream server is timing out"}'), true],
    ["a proxy's 503 in plain text", new Error('503: Service Unavailable'), true],
    ["a CDN's 524 page", new Error('524: <!DOCTYPE html>'), true],
    [
      "the server's own 503",
      new Error('503: {"message":"Service temporarily unavailable.","code":"unavailable"}'),
      false,
    ],
    ["the server's own 500", new Error('500: {"statusCode":500,"message":"Internal Server Error"}'), false],
    ['a refusal', new Error('409: {"message":"Storage full"}'), false],
    ["a proxy's 413 page (the request never reached the server)", new Error('413: <html>Too large</html>'), false],
  ])('%s: %s', (_, err, unknown) => {
    expect(outcomeUnknown(err)).toBe(unknown);
  });
});
