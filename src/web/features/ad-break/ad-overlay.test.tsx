// @vitest-environment jsdom
import { onlineManager, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { AD_STILL_PLAYING_CODE } from '@contract/ad-breaks';
import { createQueryClient, getQueryFn } from '../../lib/api';
import { useState } from 'react';
import { SETTLE_MS } from '../../lib/settling-presses';
import { PhotoViewer } from '../gallery';
import { AdOverlay } from './ad-overlay';
import { RECORD_WAIT_MS } from './record-ad-break';

const T0 = new Date('2025-03-01T10:00:00Z').getTime();

function jsonResponse(body: unknown, status = 200) {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

const recorded = () => jsonResponse({ recorded: true, message: 'Ad skipped! +2 pts' }, 201);

function setup(
  duration = 15,
  photosAnswer: () => Response = () => jsonResponse([]),
  recordAnswer: () => Response = recorded,
) {
  const fetchMock = vi.fn(async (url: string, init?: RequestInit) => {
    if (url === '/api/photos') return photosAnswer();
    if (url === '/api/activities' && init?.method === 'POST') return recordAnswer();
    return jsonResponse({});
  });
  vi.stubGlobal('fetch', fetchMock);
  // The app's own client: its mutations' defaults decide what the recording does offline.
  const qc = createQueryClient();
  const invalidate = vi.spyOn(qc, 'invalidateQueries');
  const onClose = vi.fn();
  const onReward = vi.fn();
  render(
    <QueryClientProvider client={qc}>
      <AdOverlay app="Instagram" duration={duration} onClose={onClose} onReward={onReward} adBreakId="evt-1" />
    </QueryClientProvider>,
  );
  const posts = () =>
    fetchMock.mock.calls.filter(([url, init]) => url === '/api/activities' && init?.method === 'POST');
  return { fetchMock, onClose, onReward, invalidate, posts };
}

async function advance(ms: number) {
  for (let left = ms; left > 0; left -= 100) await act(async () => vi.advanceTimersByTime(Math.min(100, left)));
  await act(async () => vi.advanceTimersByTime(0));
}

// The viewer's chunk, which the ad break fetches alongside the overlay's.
beforeAll(() => PhotoViewer.preload());
beforeEach(() => vi.useFakeTimers({ now: T0 }));
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  // A test that failed offline leaves the next ones online.
  onlineManager.setOnline(true);
});

describe('AdOverlay', () => {
  it('counts down once per second, then records the ad break once and shows the skip reward', async () => {
    const { onClose, onReward, invalidate, posts } = setup(15);
    expect(screen.getByText('Sample Advertisement')).toBeInTheDocument();
    expect(screen.getByText('Ad continues playing behind gallery')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Your Photos' })).toBeInTheDocument();
    expect(screen.getByTestId('viewer-countdown')).toHaveTextContent('0:15');

    await advance(999);
    expect(screen.getByTestId('viewer-countdown')).toHaveTextContent('0:15');
    await advance(1);
    expect(screen.getByTestId('viewer-countdown')).toHaveTextContent('0:14');
    expect(screen.getByRole('progressbar', { name: 'Ad progress', hidden: true })).toHaveAttribute(
      'aria-valuenow',
      '7',
    );
    expect(posts()).toHaveLength(0);

    await advance(14_000);
    expect(posts()).toHaveLength(1);
    const [, init] = posts()[0]!;
    expect(new Headers(init?.headers).get('Idempotency-Key')).toBe('evt-1');
    expect(JSON.parse(String(init?.body))).toEqual({
      app: 'Instagram',
      adDuration: 15,
      timeSaved: 15,
      pointsEarned: 1,
    });
    expect(onReward).toHaveBeenCalledExactlyOnceWith({ recorded: true, message: 'Ad skipped! +2 pts' });
    expect(invalidate).toHaveBeenCalledWith({ queryKey: ['/api/stats'] });
    expect(invalidate).toHaveBeenCalledWith({ queryKey: ['/api/activities'] });
    expect(screen.queryByRole('dialog', { name: 'Your Photos' })).not.toBeInTheDocument();
    expect(onClose).toHaveBeenCalledTimes(1);

    await advance(5000);
    expect(posts()).toHaveLength(1);
  });

  it("says why the photos are missing when they could not be read, not 'No photos yet'", async () => {
    setup(15, () => jsonResponse({ message: 'Too many requests. Please wait a few minutes.' }, 429));
    await advance(100);
    const viewer = screen.getByRole('dialog', { name: 'Your Photos' });
    expect(viewer).toHaveTextContent('Too many requests. Please wait a few minutes.');
    expect(viewer).not.toHaveTextContent('No photos yet');
  });

  it("says 'No photos yet' of a library that answered empty", async () => {
    setup(15);
    await advance(100);
    expect(screen.getByRole('dialog', { name: 'Your Photos' })).toHaveTextContent('No photos yet');
  });

  it('keeps counting with the gallery closed and can bring it back', async () => {
    const { posts } = setup(15);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Close' })));
    expect(screen.queryByRole('dialog', { name: 'Your Photos' })).not.toBeInTheDocument();
    await advance(3000);
    // Read out with its words (inside the text: ARIA allows no aria-label on a plain element).
    expect(screen.getAllByText((_, el) => el?.tagName === 'P' && el.textContent === 'Ad ends in 0:12')).toHaveLength(1);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Back to Photos' })));
    expect(screen.getByTestId('viewer-countdown')).toHaveTextContent(/^Ad ends in 0:12$/);
    await advance(12_000);
    expect(posts()).toHaveLength(1);
  });

  it('records a skipped mini-game as gameData none worth 1 point', async () => {
    const { posts } = setup(20);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Play Game' })));
    expect(screen.getByRole('dialog', { name: 'Ad Break Mini-Game' })).toHaveTextContent('Instagram ad • 20s');
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Skip Game' })));
    expect(screen.queryByRole('dialog', { name: 'Ad Break Mini-Game' })).not.toBeInTheDocument();
    await advance(20_000);
    expect(JSON.parse(String(posts()[0]![1]?.body))).toEqual({
      app: 'Instagram',
      adDuration: 20,
      timeSaved: 20,
      pointsEarned: 1,
      gameData: { gameType: 'none', score: 0, completed: false },
    });
  });

  it('a double click on Skip Game or Continue Browsing does not zoom the photo uncovered under it', async () => {
    const beach = {
      id: 'p1',
      name: 'Beach',
      url: '/api/photos/p1/original',
      thumbnailUrl: '/api/photos/p1/thumbnail',
      previewUrl: '/api/photos/p1/preview',
      uploadedAt: '2026-03-01T10:00:00.000Z',
      size: 1000,
      thumbhash: null,
    };
    // A 60 s ad: a game lasts 45 s at most, so the viewer is still there after one.
    setup(60, () => jsonResponse([beach]));
    await advance(0);
    // A pointer's double click: the second click comes with detail 2, at once.
    const dblClick = async (el: HTMLElement) => {
      await act(async () => fireEvent.click(el, { detail: 1 }));
      await act(async () =>
        fireEvent.click(screen.getByTestId('viewer-stage').querySelector('button')!, { detail: 2 }),
      );
    };
    const zoom = () => screen.getByRole('button', { name: /^Zoom (in|out)$/ });
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Play Game' })));
    await dblClick(screen.getByRole('button', { name: 'Skip Game' }));
    expect(screen.queryByRole('dialog', { name: 'Ad Break Mini-Game' })).not.toBeInTheDocument();
    expect(zoom()).toHaveAccessibleName('Zoom in');

    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Play Game' })));
    await act(async () => fireEvent.click(screen.getByRole('button', { name: /Quick Trivia/ })));
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Start Game' })));
    await advance(46_000);
    await dblClick(screen.getByRole('button', { name: 'Continue Browsing' }));
    expect(screen.queryByRole('dialog', { name: 'Ad Break Mini-Game' })).not.toBeInTheDocument();
    expect(zoom()).toHaveAccessibleName('Zoom in');
    // A single press, however soon, zooms it; so does a double click once the viewer has settled.
    await act(async () => fireEvent.click(zoom(), { detail: 1 }));
    expect(zoom()).toHaveAccessibleName('Zoom out');
    await advance(SETTLE_MS);
    await act(async () => fireEvent.click(zoom(), { detail: 2 }));
    expect(zoom()).toHaveAccessibleName('Zoom in');
  });

  it('waits for a game in play at 0, then records its score', async () => {
    const { posts, onClose } = setup(15);
    await advance(5000);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Play Game' })));
    await act(async () => fireEvent.click(screen.getByRole('button', { name: /Reaction Speed/ })));
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Start Game' })));
    await advance(10_000);
    // Play ended with the ad; Reaction reports its score 0.5 s later, and the break waits for it.
    expect(screen.getByText("Time's up!")).toBeInTheDocument();
    expect(posts()).toHaveLength(0);
    expect(onClose).not.toHaveBeenCalled();
    await advance(500);
    expect(posts()).toHaveLength(1);
    expect(JSON.parse(String(posts()[0]![1]?.body)).gameData).toEqual({
      gameType: 'reaction',
      score: 0,
      completed: true,
    });
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it('records the best game of the ad break, whose points its result view promised, not the last one', async () => {
    const { posts } = setup(30);
    const press = (name: string | RegExp) => act(async () => fireEvent.click(screen.getByRole('button', { name })));
    await press('Play Game');
    await press(/Reaction Speed/);
    await press('Start Game');
    for (let guard = 0; guard < 400 && !screen.queryByText('15/15'); guard++) {
      const targets = screen.queryAllByRole('button', { name: 'Target' });
      if (targets.length) await act(async () => fireEvent.click(targets[0]!));
      else await advance(100);
    }
    await advance(500);
    const promised = screen.getByText(/You earned \d+ Eyevu points!/).textContent;
    expect(promised).toMatch(/You earned (15|16|17|18|19|20) Eyevu points!/);
    await press('Continue Browsing');

    // Time is left for another game: a worse one, or one closed unfinished, keeps the first.
    await press('Play Game');
    await press(/Quick Trivia/);
    await press('Start Game');
    await press('Close mini-game');
    await press('Play Game');
    await press(/Memory Match/);
    await press('Start Game');
    await advance(30_000);
    expect(posts()).toHaveLength(1);
    const body = JSON.parse(String(posts()[0]![1]?.body));
    expect(body.gameData).toMatchObject({ gameType: 'reaction', completed: true });
    expect(`You earned ${body.pointsEarned} Eyevu points!`).toBe(promised);
  });

  it('ends a game started some time after it was opened with the ad, not after it', async () => {
    const { posts, onClose } = setup(15);
    await advance(5000);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Play Game' })));
    await act(async () => fireEvent.click(screen.getByRole('button', { name: /Quick Trivia/ })));
    // 10 s of ad left when the game was opened; the player reads the intro for 4 s.
    await advance(4000);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Start Game' })));
    expect(screen.getByText('6s left')).toBeInTheDocument();
    await advance(5999);
    expect(posts()).toHaveLength(0);
    await advance(1);
    expect(posts()).toHaveLength(1);
    expect(JSON.parse(String(posts()[0]![1]?.body)).gameData).toEqual({
      gameType: 'trivia',
      score: 0,
      completed: true,
    });
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it("records a game picked but never started as closed unfinished at the ad's end, instead of waiting for it", async () => {
    const { posts, onClose } = setup(15);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Play Game' })));
    await act(async () => fireEvent.click(screen.getByRole('button', { name: /Reaction Speed/ })));
    expect(screen.getByRole('button', { name: 'Start Game' })).toBeInTheDocument();
    await advance(15_000);
    expect(screen.queryByRole('dialog', { name: 'Ad Break Mini-Game' })).not.toBeInTheDocument();
    expect(posts()).toHaveLength(1);
    expect(JSON.parse(String(posts()[0]![1]?.body))).toEqual({
      app: 'Instagram',
      adDuration: 15,
      timeSaved: 15,
      pointsEarned: 1,
      gameData: { gameType: 'reaction', score: 0, completed: false },
    });
    expect(onClose).toHaveBeenCalledTimes(1);
  });
});

describe('AdOverlay while the page is hidden', () => {
  /** The page hidden for `ms`, its timers frozen meanwhile (a phone's background tab), then shown. */
  async function hideFor(ms: number) {
    const visibility = (state: DocumentVisibilityState) => {
      Object.defineProperty(document, 'visibilityState', { value: state, configurable: true });
      document.dispatchEvent(new Event('visibilitychange'));
    };
    await act(async () => visibility('hidden'));
    vi.setSystemTime(Date.now() + ms);
    await act(async () => visibility('visible'));
    await advance(0);
  }
  afterEach(() => {
    Reflect.deleteProperty(document, 'visibilityState');
  });

  it('shows the time the ad really has left when the page is shown again, and ends with the ad', async () => {
    const { posts } = setup(30);
    await advance(1000);
    expect(screen.getByTestId('viewer-countdown')).toHaveTextContent('0:29');
    await hideFor(20_000);
    expect(screen.getByTestId('viewer-countdown')).toHaveTextContent('0:09');
    expect(screen.getByRole('progressbar', { name: 'Ad progress', hidden: true })).toHaveAttribute(
      'aria-valuenow',
      '70',
    );
    await advance(999);
    expect(screen.getByTestId('viewer-countdown')).toHaveTextContent('0:09');
    await advance(1);
    expect(screen.getByTestId('viewer-countdown')).toHaveTextContent('0:08');
    await advance(7999);
    expect(posts()).toHaveLength(0);
    await advance(1);
    expect(posts()).toHaveLength(1);
  });

  it('records an ad that ended while the page was hidden as soon as it is shown again', async () => {
    const { posts, onClose } = setup(15);
    await advance(2000);
    await hideFor(60_000);
    expect(posts()).toHaveLength(1);
    expect(onClose).toHaveBeenCalledTimes(1);
  });
});

describe('AdOverlay without a connection', () => {
  afterEach(() => onlineManager.setOnline(true));

  it('says the ad break waits for the connection at 0, then records it once the connection is back', async () => {
    const { posts, onClose, onReward } = setup(15);
    await advance(5000);
    act(() => onlineManager.setOnline(false));
    await advance(10_000);
    expect(screen.getByText('Ad finished. Waiting for the connection to record this ad break.')).toBeInTheDocument();
    expect(posts()).toHaveLength(0);
    expect(onClose).not.toHaveBeenCalled();

    await act(async () => onlineManager.setOnline(true));
    await advance(0);
    expect(posts()).toHaveLength(1);
    expect(onReward).toHaveBeenCalledTimes(1);
    expect(onClose).toHaveBeenCalledTimes(1);
  });
});

describe('AdOverlay whose recording gets no answer', () => {
  it('gives up after RECORD_WAIT_MS and offers Try again, instead of holding the user in the overlay at 0:00', async () => {
    const { fetchMock, onClose, posts } = setup(15);
    // A connection gone dead unnoticed: no answer, until the request is abandoned.
    fetchMock.mockImplementation(async (url: string, init?: RequestInit) => {
      if (url === '/api/activities' && init?.method === 'POST')
        return new Promise<Response>((_, reject) =>
          init.signal?.addEventListener('abort', () => reject(new DOMException('Aborted', 'AbortError'))),
        );
      return jsonResponse([]);
    });
    await advance(15_000);
    expect(posts()).toHaveLength(1);
    await advance(RECORD_WAIT_MS - 100);
    expect(onClose).not.toHaveBeenCalled();
    await advance(100);
    expect(screen.getByRole('alert')).toHaveTextContent('Could not record this ad break.');
    expect(screen.getByRole('button', { name: 'Try again' })).toHaveFocus();
    expect(onClose).not.toHaveBeenCalled();
    // Not sent again unasked: a late recording is the server's to count, once (by the ad-break id).
    expect(posts()).toHaveLength(1);
  });
});

describe('AdOverlay when the recording is refused', () => {
  it('keeps a break refused for a passing reason, says why, and records it on Try again', async () => {
    const answers: (() => Response)[] = [
      () => {
        // A connection lost while the browser believes it is online.
        throw new TypeError('Failed to fetch');
      },
      () => jsonResponse({ message: 'The service is temporarily unavailable. Please try again shortly.' }, 503),
      () => jsonResponse({ message: 'The ad is still playing: 2 s left.', code: AD_STILL_PLAYING_CODE }, 409),
      recorded,
    ];
    const { posts, onClose, onReward } = setup(15, undefined, () => answers.shift()!());
    await advance(15_000);
    expect(posts()).toHaveLength(1);
    expect(screen.getByRole('alert')).toHaveTextContent(
      'Could not record this ad break. Network error. Please try again.',
    );
    expect(screen.getByRole('button', { name: 'Try again' })).toHaveFocus();
    expect(onClose).not.toHaveBeenCalled();
    expect(onReward).not.toHaveBeenCalled();

    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Try again' })));
    await advance(0);
    expect(screen.getByRole('alert')).toHaveTextContent(
      'Could not record this ad break. The service is temporarily unavailable. Please try again shortly.',
    );
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Try again' })));
    await advance(0);
    expect(screen.getByRole('alert')).toHaveTextContent('The ad is still playing: 2 s left.');
    expect(onClose).not.toHaveBeenCalled();

    await advance(2_000);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Try again' })));
    await advance(0);
    expect(onReward).toHaveBeenCalledExactlyOnceWith({ recorded: true, message: 'Ad skipped! +2 pts' });
    expect(onClose).toHaveBeenCalledTimes(1);
    // The same ad break every time: the server counts it once, whatever reached it.
    expect(posts()).toHaveLength(4);
    for (const [, init] of posts()) expect(new Headers(init?.headers).get('Idempotency-Key')).toBe('evt-1');
  });

  it('reads the same refusal out again when Try again meets it again', async () => {
    const { posts } = setup(15, undefined, () => jsonResponse({ message: 'Something went wrong on our side.' }, 500));
    await advance(15_000);
    const first = screen.getByRole('alert');
    expect(first).toHaveTextContent('Could not record this ad break. Something went wrong on our side.');
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Try again' })));
    await advance(0);
    expect(posts()).toHaveLength(2);
    // A new alert, not the old one with the same words (which a screen reader does not read again).
    const second = screen.getByRole('alert');
    expect(second).toHaveTextContent('Could not record this ad break. Something went wrong on our side.');
    expect(second).not.toBe(first);
  });

  it('says it waits for the connection when Try again is pressed offline, then records once it is back', async () => {
    const answers: (() => Response)[] = [
      () => {
        throw new TypeError('Failed to fetch');
      },
      recorded,
    ];
    const { posts, onClose, onReward } = setup(15, undefined, () => answers.shift()!());
    await advance(15_000);
    expect(screen.getByRole('alert')).toHaveTextContent('Network error. Please try again.');
    act(() => onlineManager.setOnline(false));
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Try again' })));
    await advance(0);
    expect(posts()).toHaveLength(1);
    expect(screen.getByRole('status')).toHaveTextContent(
      'Ad finished. Waiting for the connection to record this ad break.',
    );
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();

    await act(async () => onlineManager.setOnline(true));
    await advance(0);
    expect(posts()).toHaveLength(2);
    expect(onReward).toHaveBeenCalledTimes(1);
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it('can be closed unpaid from the failure', async () => {
    const { onClose, onReward } = setup(15, undefined, () =>
      jsonResponse({ message: 'Something went wrong on our side.' }, 500),
    );
    await advance(15_000);
    expect(screen.getByRole('alert')).toHaveTextContent('Something went wrong on our side.');
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Close' })));
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(onReward).not.toHaveBeenCalled();
  });

  it('closes once: a Try again answered after Close does not close the next ad break', async () => {
    let answerLate: ((res: Response) => void) | undefined;
    const answers: (() => Response | Promise<Response>)[] = [
      () => jsonResponse({ message: 'Something went wrong on our side.' }, 500),
      () => new Promise<Response>((resolve) => (answerLate = resolve)),
    ];
    const { onClose, onReward } = setup(15, undefined, () => answers.shift()!() as Response);
    await advance(15_000);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Try again' })));
    await advance(0);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Close' })));
    expect(onClose).toHaveBeenCalledTimes(1);
    // The user has started another ad break by the time this one's answer comes: its overlay stays.
    await act(async () => answerLate!(recorded()));
    await advance(0);
    expect(onReward).toHaveBeenCalledTimes(1);
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it("closes on a final refusal, with the server's reason", async () => {
    const { onClose, onReward, posts } = setup(15, undefined, () =>
      jsonResponse(
        { message: 'This ad break was replaced by a newer one and cannot be recorded.', code: 'conflict' },
        409,
      ),
    );
    await advance(15_000);
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(onReward).not.toHaveBeenCalled();
    expect(screen.queryByRole('button', { name: 'Try again' })).not.toBeInTheDocument();
    expect(posts()).toHaveLength(1);
  });
});

describe('AdOverlay focus', () => {
  it('moves focus to Back to Photos when the viewer is closed mid-ad, not to the control behind the overlay', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => jsonResponse([])),
    );
    const qc = new QueryClient({
      defaultOptions: { queries: { queryFn: getQueryFn({ on401: 'throw' }), retry: false, staleTime: Infinity } },
    });
    function Harness() {
      const [running, setRunning] = useState(false);
      return (
        <QueryClientProvider client={qc}>
          <button type="button" onClick={() => setRunning(true)}>
            YouTube (30s)
          </button>
          {running && <AdOverlay app="YouTube" duration={30} onClose={() => setRunning(false)} adBreakId="evt-2" />}
        </QueryClientProvider>
      );
    }
    render(<Harness />);
    const start = screen.getByRole('button', { name: 'YouTube (30s)' });
    start.focus();
    await act(async () => fireEvent.click(start));
    expect(screen.getByRole('dialog', { name: 'Your Photos' })).toBeInTheDocument();
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Close' })));
    await advance(0);
    expect(screen.getByRole('button', { name: 'Back to Photos' })).toHaveFocus();
  });
});

describe('AdOverlay as a modal layer', () => {
  // Testing Library's async wrapper lets a 0 ms timer pass after each user-event step, and it
  // advances fake timers only through a global `jest`: without it, every step would wait forever.
  beforeEach(() => vi.stubGlobal('jest', { advanceTimersByTime: (ms: number) => vi.advanceTimersByTime(ms) }));

  function renderOnPage() {
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init?: RequestInit) =>
        url === '/api/activities' && init?.method === 'POST'
          ? jsonResponse({ recorded: true, message: 'Ad skipped! +3 pts' }, 201)
          : jsonResponse([]),
      ),
    );
    const qc = new QueryClient({
      defaultOptions: { queries: { queryFn: getQueryFn({ on401: 'throw' }), retry: false, staleTime: Infinity } },
    });
    function Page() {
      const [running, setRunning] = useState(false);
      return (
        <QueryClientProvider client={qc}>
          <a href="/gallery">Gallery</a>
          <button type="button" onClick={() => setRunning(true)}>
            YouTube (30s)
          </button>
          {running && (
            <AdOverlay
              app="YouTube"
              duration={30}
              onClose={() => setRunning(false)}
              onReward={() => {}}
              adBreakId="evt-3"
            />
          )}
          <button type="button">Organize Photos</button>
        </QueryClientProvider>
      );
    }
    render(
      <>
        <Page />
        <div role="status" aria-live="polite" data-testid="toasts" />
      </>,
    );
    return userEvent.setup({ delay: null });
  }

  it('keeps Tab inside the ad panel while the viewer is closed, leaves the page behind inert, and gives focus back at the end', async () => {
    const user = renderOnPage();
    await user.click(screen.getByRole('button', { name: 'YouTube (30s)' }));
    await user.keyboard('{Escape}');
    await advance(0);
    const back = screen.getByRole('button', { name: 'Back to Photos' });
    expect(back).toHaveFocus();
    expect(screen.getByRole('dialog', { name: 'Sample Advertisement' })).toContainElement(back);

    for (let i = 0; i < 4; i++) {
      await user.tab();
      expect(back).toHaveFocus();
      await user.tab({ shift: true });
      expect(back).toHaveFocus();
    }
    // The page behind is out of reach for pointers and assistive technology too; live regions are not.
    for (const name of ['YouTube (30s)', 'Organize Photos']) {
      expect(screen.getByRole('button', { name, hidden: true }).closest('[inert]')).not.toBeNull();
    }
    expect(screen.getByRole('link', { name: 'Gallery', hidden: true }).closest('[inert]')).not.toBeNull();
    expect(screen.getByTestId('toasts').closest('[inert]')).toBeNull();

    // Escape does not end an ad; the viewer comes back from Back to Photos.
    await user.keyboard('{Escape}');
    expect(screen.getByRole('dialog', { name: 'Sample Advertisement' })).toBeInTheDocument();
    await user.click(back);
    // Dialogs opened over the panel are not part of the page behind.
    expect(screen.getByRole('dialog', { name: 'Your Photos' }).closest('[inert]')).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Play Game' }));
    expect(screen.getByRole('dialog', { name: 'Ad Break Mini-Game' }).closest('[inert]')).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Skip Game' }));
    await user.keyboard('{Escape}');
    await advance(0);
    expect(screen.getByRole('button', { name: 'Back to Photos' })).toHaveFocus();

    await advance(30_000);
    expect(screen.queryByRole('dialog', { name: 'Sample Advertisement' })).not.toBeInTheDocument();
    const start = screen.getByRole('button', { name: 'YouTube (30s)' });
    expect(start.closest('[inert]')).toBeNull();
    expect(start).toHaveFocus();
  });

  it('gives focus back to the control that started the ad when the ad ends with the viewer open', async () => {
    const user = renderOnPage();
    await user.click(screen.getByRole('button', { name: 'YouTube (30s)' }));
    expect(screen.getByRole('dialog', { name: 'Your Photos' }).closest('[inert]')).toBeNull();
    await advance(30_000);
    expect(screen.queryByTestId('ad-overlay')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'YouTube (30s)' })).toHaveFocus();
    expect(document.querySelector('[inert]')).toBeNull();
  });
});
