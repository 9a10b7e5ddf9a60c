// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { getQueryFn } from '../../lib/api';
import { SimilarPhotos } from './similar-photos';
import { testPhoto as photo } from './test-photos';

const TOO_MANY = 'Too many requests. Please wait a moment.';
const refused = () => new Response(JSON.stringify({ message: TOO_MANY, code: 'rate_limited' }), { status: 429 });
const answer = () => new Response(JSON.stringify({ items: [photo('p2', 'Beach copy')] }));

afterEach(() => vi.unstubAllGlobals());

function renderSimilar(fetchMock: ReturnType<typeof vi.fn>) {
  vi.stubGlobal('fetch', fetchMock);
  const qc = new QueryClient({
    defaultOptions: { queries: { queryFn: getQueryFn({ on401: 'throw' }), retry: false, staleTime: Infinity } },
  });
  render(
    <QueryClientProvider client={qc}>
      <SimilarPhotos photoId="p1" onShow={() => {}} />
    </QueryClientProvider>,
  );
}

describe('Similar photos', () => {
  it('a refused look says why and offers Try again; answered, focus goes to the row’s toggle', async () => {
    const fetchMock = vi.fn().mockResolvedValueOnce(refused()).mockResolvedValueOnce(answer());
    renderSimilar(fetchMock);
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Similar photos' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(TOO_MANY);
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('button', { name: 'Show similar photo Beach copy' })).toBeInTheDocument();
    expect(screen.queryByRole('alert')).toBeNull();
    // The pressed button went with the refusal: focus is on the toggle, the photos next after it.
    expect(screen.getByRole('button', { name: 'Similar photos' })).toHaveFocus();
    expect(fetchMock).toHaveBeenCalledTimes(2);
  });

  it('while a Try again is on its way, says so and offers nothing to press twice', async () => {
    let answerNow: (res: Response) => void = () => {};
    const fetchMock = vi
      .fn()
      .mockResolvedValueOnce(refused())
      .mockImplementationOnce(() => new Promise<Response>((resolve) => (answerNow = resolve)));
    renderSimilar(fetchMock);
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Similar photos' }));
    await screen.findByRole('alert');
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText('Looking for similar photos...')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Try again' })).toBeNull();
    answerNow(answer());
    expect(await screen.findByRole('button', { name: 'Show similar photo Beach copy' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Similar photos' })).toHaveFocus();
    expect(fetchMock).toHaveBeenCalledTimes(2);
  });

  it('refused again, the reason is read out again and focus stays on Try again', async () => {
    const fetchMock = vi.fn().mockImplementation(async () => refused());
    renderSimilar(fetchMock);
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Similar photos' }));
    const first = await screen.findByRole('alert');
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    await waitFor(() => expect(screen.getByRole('alert')).not.toBe(first));
    expect(screen.getByRole('alert')).toHaveTextContent(TOO_MANY);
    expect(screen.getByRole('button', { name: 'Try again' })).toHaveFocus();
  });
});
