// @vitest-environment jsdom
import { act, fireEvent, screen } from '@testing-library/react';
import { READ_WAIT_MS } from '../../lib/api';
import { renderGallery, stubResizeObserver } from './test-gallery';
import { testPhoto as photo } from './test-photos';

/**
 * A page read the server never answers (a phone's half-open connection, a proxy holding it): given
 * up after READ_WAIT_MS as a lost connection, so the screen says so and offers Try again, instead of
 * its skeletons or a waiting grid for as long as the browser keeps the request.
 */

/** As the browser's fetch does on a dead connection: no answer, until the request is aborted. */
const hang = (init?: RequestInit) =>
  new Promise<Response>((_, reject) =>
    init?.signal?.addEventListener('abort', () => reject(new DOMException('Aborted', 'AbortError'))),
  );
const firstPage = () =>
  new Response(JSON.stringify({ items: [photo('p1', 'Beach'), photo('p2', 'Forest')], nextCursor: 'more', total: 3 }));

let answerFirstPage: 'hang' | 'answer';
let asks: string[];

beforeEach(() => {
  vi.useFakeTimers();
  window.history.replaceState(null, '');
  stubResizeObserver();
  asks = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      if (!url.startsWith('/api/photos/timeline')) return new Response('[]');
      asks.push(url);
      if (url.includes('cursor=')) return hang(init);
      return answerFirstPage === 'hang' ? hang(init) : firstPage();
    }),
  );
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

/** Lets answers and the renders they bring run (React's deferred render waits on a timer). */
const flush = async () => {
  for (let i = 0; i < 10; i++) await act(async () => vi.advanceTimersByTimeAsync(20));
};

it('a first page never answered says so after READ_WAIT_MS, and Try again asks again', async () => {
  answerFirstPage = 'hang';
  renderGallery();
  // Without moving the clock: the page is asked at once.
  for (let i = 0; i < 10; i++) await act(async () => vi.advanceTimersByTimeAsync(0));
  expect(asks).toHaveLength(1);
  expect(screen.getByLabelText('Loading photos')).toBeInTheDocument();
  await act(async () => vi.advanceTimersByTimeAsync(READ_WAIT_MS - 1));
  expect(screen.queryByRole('alert')).toBeNull();
  await act(async () => vi.advanceTimersByTimeAsync(1));
  await flush();
  expect(screen.getByRole('alert')).toHaveTextContent('Network error. Please try again.');
  // A library never read is not an empty one.
  expect(screen.queryByText('0 photos available')).toBeNull();
  // Not asked again behind the user's back.
  expect(asks).toHaveLength(1);

  answerFirstPage = 'answer';
  const retry = screen.getByRole('button', { name: 'Try again' });
  retry.focus();
  fireEvent.click(retry);
  await flush();
  expect(asks.filter((u) => !u.includes('cursor='))).toHaveLength(2);
  expect(screen.getByRole('button', { name: 'Open Beach' })).toBeInTheDocument();
  expect(screen.queryByRole('alert')).toBeNull();
  // The button went with the failure: focus goes to the first photo, not past it to Select.
  expect(screen.getByRole('button', { name: 'Open Beach' })).toHaveFocus();
});

it('a next page never answered says so below the photos after READ_WAIT_MS, with Try again', async () => {
  answerFirstPage = 'answer';
  renderGallery();
  await flush();
  expect(screen.getByRole('button', { name: 'Open Beach' })).toBeInTheDocument();
  // The grid asks for the next page as soon as its skeletons are in view.
  expect(asks.some((u) => u.includes('cursor=more'))).toBe(true);
  await act(async () => vi.advanceTimersByTimeAsync(READ_WAIT_MS));
  await flush();
  expect(screen.getByRole('alert')).toHaveTextContent('Could not load more photos. Network error. Please try again.');
  expect(screen.getByRole('button', { name: 'Try again' })).toBeInTheDocument();
  expect(screen.getByRole('button', { name: 'Open Beach' })).toBeInTheDocument();
});
