// @vitest-environment jsdom
import type { Activity } from '@contract/activities';
import type { AppStatus } from '@contract/app-status';
import type { Stats } from '@contract/rewards';
import { QueryClient, QueryClientProvider, type QueryFunction, type QueryKey } from '@tanstack/react-query';
import { act, render, screen, waitFor, within } from '@testing-library/react';
import { getQueryFn } from '../../lib/api';
import { forgetServerClock } from '../../lib/server-clock';
import { spokenText } from '../../test/spoken-text';
import { Dashboard } from './dashboard-page';

const NOW = new Date('2026-03-10T12:00:00Z');

const stats = (over: Partial<Stats> = {}): Stats => ({
  totalPoints: 0,
  adsSkipped: 0,
  timeSaved: 0,
  pointsByDay: ['03-04', '03-05', '03-06', '03-07', '03-08', '03-09', '03-10'].map((d, i) => ({
    date: `2026-${d}`,
    points: i === 6 ? 12 : 0,
  })),
  ...over,
});

const activity = (i: number, minutesAgo: number): Activity => ({
  id: `a${i}`,
  app: ['YouTube', 'Instagram', 'TikTok', 'YouTube'][i % 4]!,
  adDuration: 30,
  pointsEarned: 3,
  timeSaved: 30,
  gameType: null,
  gameScore: null,
  createdAt: new Date(NOW.getTime() - minutesAgo * 60_000).toISOString(),
});

const TOO_MANY = JSON.stringify({ message: 'Too many attempts. Please wait 5 minute(s) and try again.' });
const FREE_PLAN = { status: 'inactive', tier: 'free', billingCycle: 'monthly', price: 0, endDate: null };
const INACTIVE: AppStatus = { isActive: false, isMonitoring: false, lastActivity: null, activeSince: null };

/**
 * The dashboard over answers already held: a new free user's (no summary) unless given. A query
 * named in `asked` holds no answer and is asked as the screen would: of `fetch` through the app's
 * query function, or through the one given (a query with a function of its own, the stats, keeps
 * it). Any other query asked never answers.
 */
function renderDashboard(
  data: {
    createdDaysAgo?: number;
    createdAt?: string;
    stats?: Stats;
    activities?: Activity[];
    photos?: object[];
    summary?: object;
    subscription?: object;
    appStatus?: AppStatus;
    asked?: (readonly [QueryKey, QueryFunction?])[];
  } = {},
) {
  const qc = new QueryClient({
    defaultOptions: { queries: { staleTime: Infinity, retry: false, queryFn: () => new Promise(() => {}) } },
  });
  const createdAt = data.createdAt ?? new Date(NOW.getTime() - (data.createdDaysAgo ?? 0) * 86_400_000).toISOString();
  const asked = (data.asked ?? []).map(([key]) => JSON.stringify(key));
  for (const [key, queryFn = getQueryFn({ on401: 'throw' })] of data.asked ?? []) qc.setQueryDefaults(key, { queryFn });
  const held: [QueryKey, unknown][] = [
    [['/api/auth/user'], { user: { id: 'u1', email: 'a@b.c', firstName: 'Ada', lastName: 'L', createdAt } }],
    [['/api/stats'], data.stats ?? stats()],
    [['/api/activities'], data.activities ?? []],
    [['/api/photos'], data.photos ?? []],
    [['/api/photos', 'summary'], data.summary],
    [['/api/subscription'], data.subscription ?? FREE_PLAN],
    [['/api/app-status'], data.appStatus ?? INACTIVE],
  ];
  for (const [key, answer] of held)
    if (answer !== undefined && !asked.includes(JSON.stringify(key))) qc.setQueryData(key, answer);
  const view = render(
    <QueryClientProvider client={qc}>
      <Dashboard />
    </QueryClientProvider>,
  );
  return { ...view, qc };
}

/**
 * `fetch` answering `/api/subscription` with `plan(serverTime)` (`null`: a 503) and the server's
 * Date header; any other request never answers. Returns the count of plan requests.
 */
function servePlan(plan: (serverTime: number) => object | null, serverTime = () => Date.now()) {
  const asked = vi.fn();
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      if (url !== '/api/subscription') return new Promise<Response>(() => {});
      asked();
      const now = serverTime();
      const headers = { 'content-type': 'application/json', date: new Date(now).toUTCString() };
      const body = plan(now);
      return body
        ? new Response(JSON.stringify(body), { status: 200, headers })
        : new Response('Service Unavailable', { status: 503, headers });
    }),
  );
  return asked;
}

/** A monthly premium plan ending at `end`, as the server answers it while on, or once ended. */
const premiumUntil = (end: number, active: boolean) => ({
  status: active ? 'active' : 'expired',
  tier: active ? 'premium' : 'free',
  billingCycle: 'monthly',
  price: active ? 999 : 0,
  endDate: new Date(end).toISOString(),
});

beforeEach(() => {
  vi.useFakeTimers({ now: NOW, toFake: ['Date'] });
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  forgetServerClock();
});

describe('Dashboard', () => {
  it('reads the points badge as words, in its text (ARIA ignores an aria-label on a plain element)', () => {
    renderDashboard({ createdDaysAgo: 0, stats: stats({ totalPoints: 12 }) });
    const badge = screen.getByTestId('total-points').parentElement!;
    expect(badge).not.toHaveAttribute('aria-label');
    expect(spokenText(badge).trim()).toBe('12 points');
    // Sighted users still see the spec's '12 pts'.
    expect(screen.getByTestId('total-points')).toHaveTextContent(/^12 pts$/);
    expect(screen.getByText('12 points')).toHaveClass('sr-only');
  });

  it('shows a new free user the spec texts, zeros and an empty activity list', () => {
    renderDashboard({ createdDaysAgo: 0, stats: stats({ totalPoints: 12 }) });
    expect(screen.getByRole('heading', { name: 'Hi, Ada' })).toBeInTheDocument();
    expect(screen.getByText('Member for 0 days • 0 photos')).toBeInTheDocument();
    expect(screen.getByTestId('total-points')).toHaveTextContent('12 pts');
    expect(screen.queryByText('Ad Skipper Pro!')).toBeNull();
    expect(screen.queryByText('Weekly Progress')).toBeNull();
    const plan = screen.getByTestId('plan-card');
    expect(within(plan).getByText('Free Plan')).toBeInTheDocument();
    expect(within(plan).getByText('Limited features')).toBeInTheDocument();
    expect(within(plan).getByRole('link', { name: 'Upgrade' })).toHaveAttribute('href', '/pricing');
    expect(screen.getByText('0 total photos • 0 analyzed')).toBeInTheDocument();
    expect(screen.getByText('0%')).toBeInTheDocument();
    expect(screen.getByText('No activities yet')).toBeInTheDocument();
    expect(screen.getByText('Start skipping ads to see your activity')).toBeInTheDocument();
    expect(screen.getByRole('img', { name: /Tue 12/ })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'YouTube (30s)' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Instagram (15s)' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'TikTok (20s)' })).toBeInTheDocument();
  });

  it("rolls the 7-day chart over at the browser's midnight, though nothing else asks the stats again", async () => {
    vi.useRealTimers();
    vi.useFakeTimers({ now: new Date(2026, 2, 10, 23, 59, 50) });
    const nextWeek = stats({
      totalPoints: 12,
      pointsByDay: ['03-05', '03-06', '03-07', '03-08', '03-09', '03-10', '03-11'].map((d, i) => ({
        date: `2026-${d}`,
        points: i === 5 ? 12 : 0,
      })),
    });
    const fetchMock = vi.fn((url: string) =>
      url.startsWith('/api/stats')
        ? Promise.resolve(
            new Response(JSON.stringify(nextWeek), { status: 200, headers: { 'content-type': 'application/json' } }),
          )
        : new Promise<Response>(() => {}),
    );
    vi.stubGlobal('fetch', fetchMock);
    const statsAsked = () => fetchMock.mock.calls.filter(([url]) => url.startsWith('/api/stats'));
    renderDashboard({ createdDaysAgo: 3, stats: stats({ totalPoints: 12 }) });
    expect(screen.getByRole('img', { name: /: Wed 0, .*, Tue 12$/ })).toBeInTheDocument();
    await act(() => vi.advanceTimersByTimeAsync(9_000));
    expect(statsAsked()).toEqual([]);
    // Midnight: the week now ends today, Wednesday, with yesterday's 12 points one bar back.
    await act(() => vi.advanceTimersByTimeAsync(2_000));
    expect(statsAsked()).toHaveLength(1);
    // The answer read and the query's batched notification (a zero timer) delivered.
    await act(() => vi.advanceTimersByTimeAsync(50));
    expect(statsAsked()[0]![0]).toMatch(/^\/api\/stats\?utcOffsetMinutes=-?\d+$/);
    expect(screen.getByRole('img', { name: /: Thu 0, .*, Tue 12, Wed 0$/ })).toBeInTheDocument();
    // Once a day, not on every tick.
    await act(() => vi.advanceTimersByTimeAsync(60 * 60_000));
    expect(statsAsked()).toHaveLength(1);
  });

  it('shows the Pro banner, Weekly Progress, the first 3 activities and the active plan', () => {
    renderDashboard({
      createdDaysAgo: 10,
      stats: stats({ totalPoints: 125, adsSkipped: 11, timeSaved: 330 }),
      activities: [activity(0, 0), activity(1, 5), activity(2, 120), activity(3, 3 * 1440)],
      photos: [
        {
          id: 'p1',
          name: 'a',
          url: '/api/photos/p1/original?v=1',
          thumbnailUrl: '/api/photos/p1/thumbnail?v=1',
          analyzed: true,
          category: 'food_drink',
          albumId: null,
        },
        { id: 'p2', name: 'b', url: '/b', thumbnailUrl: null, analyzed: false, category: null, albumId: 'x' },
      ],
      subscription: {
        status: 'active',
        tier: 'premium',
        billingCycle: 'monthly',
        price: 999,
        // Midday UTC: the 9th in every zone the tests may run in.
        endDate: '2026-04-09T12:00:00Z',
      },
    });
    expect(screen.getByText('Ad Skipper Pro!')).toBeInTheDocument();
    expect(screen.getByText("You've skipped 11 ads")).toBeInTheDocument();
    // Highlighted: one background and one border colour (with the card's too, the stylesheet put
    // bg-surface after bg-primary-soft, and the banner looked like any other card).
    const banner = screen.getByText('Ad Skipper Pro!').parentElement!;
    expect(banner).toHaveClass('bg-primary-soft', 'border-primary');
    expect(banner.className).not.toMatch(/\bbg-surface\b|\bborder-border\b/);
    expect(screen.getByText('5m')).toBeInTheDocument();
    // Avg/Day 125 / 10 = 12.5 -> 13; Weekly Progress 13 x 7 = 91.
    expect(screen.getByText('13')).toBeInTheDocument();
    expect(screen.getByText('+91 pts')).toBeInTheDocument();
    expect(screen.getByText('Member for 10 days • 2 photos')).toBeInTheDocument();
    expect(screen.getByText('2 total photos • 1 analyzed')).toBeInTheDocument();
    expect(screen.getByText('food drink')).toBeInTheDocument();
    // Recent Photos' 80 px boxes get the small thumbnail; a photo without a thumbnail, its own URL.
    expect(screen.getByRole('img', { name: 'a' })).toHaveAttribute('src', '/api/photos/p1/small?v=1');
    expect(screen.getByRole('img', { name: 'b' })).toHaveAttribute('src', '/b');
    expect(screen.getByText('550%')).toBeInTheDocument();
    const plan = screen.getByTestId('plan-card');
    expect(within(plan).getByText('Premium Plan')).toBeInTheDocument();
    // The month by name, as the server paints it (web-pages.ts): never '4/9/2026', April or September.
    expect(within(plan).getByText('Expires Apr 9, 2026')).toBeInTheDocument();
    expect(within(plan).queryByRole('link', { name: 'Upgrade' })).toBeNull();
    const list = screen.getByTestId('activity-list');
    expect(within(list).getAllByRole('listitem')).toHaveLength(3);
    expect(within(list).getByText('Just now')).toBeInTheDocument();
    expect(within(list).getByText('5 minutes ago')).toBeInTheDocument();
    expect(within(list).getByText('2 hours ago')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'View All Activities' })).toHaveAttribute('href', '/settings');
  });

  it('shows the status card for an active app', () => {
    renderDashboard({
      createdDaysAgo: 1,
      stats: stats(),
      appStatus: {
        isActive: true,
        isMonitoring: true,
        activeSince: new Date(NOW.getTime() - 5 * 60_000).toISOString(),
        lastActivity: new Date(NOW.getTime() - 60_000).toISOString(),
      },
    });
    const card = screen.getByTestId('status-card');
    expect(within(card).getByRole('heading', { name: 'Eyevu Active' })).toBeInTheDocument();
    expect(within(card).getByText('Eyevu is running in the background')).toBeInTheDocument();
    expect(within(card).getByText('Monitoring')).toBeInTheDocument();
    expect(within(card).getByText('Active for 5 minutes')).toBeInTheDocument();
    expect(within(card).getByText('Last activity: 1 minute ago')).toBeInTheDocument();
    expect(within(card).getByRole('button', { name: 'Deactivate' })).toBeInTheDocument();
  });

  it("counts the status card and activity times by the server's clock, not a device clock 10 minutes off", async () => {
    for (const skewMinutes of [10, -10]) {
      // The device reads NOW; the server's clock (its answers' Date header) is skewMinutes behind it.
      const server = new Date(NOW.getTime() - skewMinutes * 60_000);
      const answers: Record<string, unknown> = {
        '/api/app-status': {
          isActive: true,
          isMonitoring: true,
          activeSince: new Date(server.getTime() - 2 * 60_000).toISOString(),
          lastActivity: server.toISOString(),
        },
        '/api/activities': [{ ...activity(0, 0), createdAt: new Date(server.getTime() - 5 * 60_000).toISOString() }],
      };
      vi.stubGlobal(
        'fetch',
        vi.fn(
          async (url: string) =>
            new Response(JSON.stringify(answers[url]), {
              status: 200,
              headers: { 'content-type': 'application/json', date: server.toUTCString() },
            }),
        ),
      );
      const view = renderDashboard({ asked: Object.keys(answers).map((key) => [[key]] as const) });
      const card = screen.getByTestId('status-card');
      await waitFor(() => expect(within(card).getByText('Active for 2 minutes')).toBeInTheDocument());
      expect(within(card).getByText('Last activity: less than a minute ago')).toBeInTheDocument();
      expect(within(screen.getByTestId('activity-list')).getByText('5 minutes ago')).toBeInTheDocument();
      view.unmount();
      forgetServerClock();
    }
  });

  it("turns the plan card to the Free plan when the plan ends by the server's clock, with the screen left open", async () => {
    for (const skewMinutes of [0, 10]) {
      vi.useFakeTimers({ now: NOW, toFake: ['Date', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
      // A 7-day trial with 90 s left on the server, whose clock is skewMinutes behind the device's.
      const serverTime = () => Date.now() - skewMinutes * 60_000;
      const end = serverTime() + 90_000;
      const asked = servePlan((now) => premiumUntil(end, now < end), serverTime);
      const view = renderDashboard({ asked: [[['/api/subscription']]] });
      const plan = screen.getByTestId('plan-card');
      await act(() => vi.advanceTimersByTimeAsync(0));
      expect(within(plan).getByText('Premium Plan')).toBeInTheDocument();
      await act(() => vi.advanceTimersByTimeAsync(89_000));
      expect(within(plan).getByText('Premium Plan')).toBeInTheDocument();
      expect(asked).toHaveBeenCalledTimes(1);
      await act(() => vi.advanceTimersByTimeAsync(2_000));
      expect(within(plan).getByText('Free Plan')).toBeInTheDocument();
      expect(within(plan).getByRole('link', { name: 'Upgrade' })).toBeInTheDocument();
      // Asked at the end (within the header's second, perhaps once more), then no more.
      const calls = asked.mock.calls.length;
      expect(calls).toBeLessThanOrEqual(3);
      await act(() => vi.advanceTimersByTimeAsync(10 * 60_000));
      expect(asked).toHaveBeenCalledTimes(calls);
      view.unmount();
      forgetServerClock();
    }
  });

  it('a renewing plan whose renewal reaches the server a few seconds after its end shows again, without a reload', async () => {
    vi.useFakeTimers({ now: NOW, toFake: ['Date', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const end = NOW.getTime() + 60_000;
    // Stripe renews at the period's end; its event reaches the server 5 s later.
    const renewedAt = end + 5_000;
    const asked = servePlan((now) => {
      const renewed = now >= renewedAt;
      const active = now < end || renewed;
      return {
        ...premiumUntil(renewed ? end + 30 * 86_400_000 : end, active),
        source: 'stripe',
        cancelAtPeriodEnd: false,
        trialAvailable: false,
        trial: false,
        trialEndsAt: null,
        // Past its end, not cancelled, its renewal not confirmed yet: Stripe still charges it.
        paymentDue: !active,
      };
    });
    renderDashboard({ asked: [[['/api/subscription']]] });
    const plan = screen.getByTestId('plan-card');
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(within(plan).getByText('Premium Plan')).toBeInTheDocument();
    await act(() => vi.advanceTimersByTimeAsync(61_000));
    expect(within(plan).getByText('Free Plan')).toBeInTheDocument();
    await act(() => vi.advanceTimersByTimeAsync(10_000));
    expect(within(plan).getByText('Premium Plan')).toBeInTheDocument();
    // Renewed: the next end is a month away, and nothing more is asked meanwhile.
    const calls = asked.mock.calls.length;
    expect(calls).toBeLessThanOrEqual(6);
    await act(() => vi.advanceTimersByTimeAsync(30 * 60_000));
    expect(asked).toHaveBeenCalledTimes(calls);
  });

  it('a plan whose ask at its end is refused (a server restarting) is asked again, not left shown for good', async () => {
    vi.useFakeTimers({ now: NOW, toFake: ['Date', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const end = NOW.getTime() + 60_000;
    // The server restarts over the plan's end: its answers are 503 for the 3 s after it.
    const upAgainAt = end + 3_000;
    const asked = servePlan((now) => (now >= end && now < upAgainAt ? null : premiumUntil(end, now < end)));
    renderDashboard({ asked: [[['/api/subscription']]] });
    const plan = screen.getByTestId('plan-card');
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(within(plan).getByText('Premium Plan')).toBeInTheDocument();
    // The ask at the end is refused: the ended plan was left on screen until the screen was left.
    // One ask at the end for both of the screen's plan hooks, the refusal included.
    await act(() => vi.advanceTimersByTimeAsync(60_500));
    expect(asked).toHaveBeenCalledTimes(2);
    await act(() => vi.advanceTimersByTimeAsync(10_000));
    expect(within(plan).getByText('Free Plan')).toBeInTheDocument();
    // Backed off while refused (1 s, 2 s, 4 s...), then no more once the plan has ended.
    const calls = asked.mock.calls.length;
    expect(calls).toBeLessThanOrEqual(6);
    await act(() => vi.advanceTimersByTimeAsync(30 * 60_000));
    expect(asked).toHaveBeenCalledTimes(calls);
  });

  it('a refused summary (429) leaves the counts of the photos it has, not a crash or a screen still waiting', async () => {
    const { qc } = renderDashboard({
      photos: [1, 2].map((i) => ({
        id: `p${i}`,
        name: `n${i}`,
        url: `/${i}`,
        thumbnailUrl: `/${i}-t`,
        analyzed: i === 1,
      })),
      asked: [[['/api/photos', 'summary'], () => Promise.reject(new Error(`429: ${TOO_MANY}`))]],
    });
    await act(async () => {
      await qc
        .getQueryCache()
        .find({ queryKey: ['/api/photos', 'summary'] })
        ?.promise?.catch(() => undefined);
    });
    expect(qc.getQueryState(['/api/photos', 'summary'])?.status).toBe('error');
    expect(screen.getByText('Member for 0 days • 2 photos')).toBeInTheDocument();
    expect(screen.getByText('2 total photos • 1 analyzed')).toBeInTheDocument();
  });

  it('counts the whole library from the summary, not only the recent photos it lists', () => {
    renderDashboard({
      createdDaysAgo: 3,
      stats: stats({ adsSkipped: 30 }),
      photos: [{ id: 'p1', name: 'a', url: '/a', thumbnailUrl: '/a-t', analyzed: true, category: null, albumId: null }],
      summary: { total: 1200, analyzed: 900, organized: 850, categories: [] },
    });
    expect(screen.getByText('Member for 3 days • 1200 photos')).toBeInTheDocument();
    expect(screen.getByText('1200 total photos • 900 analyzed')).toBeInTheDocument();
    expect(screen.getByText('850')).toBeInTheDocument();
    // Efficiency Score = 30 / 1200 x 100, rounded.
    expect(screen.getByText('3%')).toBeInTheDocument();
  });

  it('offers Try again where the points, plan, activities and app status could not be read, and shows them once answered', async () => {
    // A dead connection given up on, then a connection that works again.
    let up = false;
    const answers: Record<string, unknown> = {
      '/api/activities': [activity(0, 5)],
      '/api/subscription': premiumUntil(NOW.getTime() + 30 * 86_400_000, true),
      '/api/app-status': { ...INACTIVE, isActive: true },
    };
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        if (!up) throw new TypeError('Failed to fetch');
        const body = url.startsWith('/api/stats') ? stats({ totalPoints: 42 }) : answers[url];
        return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
      }),
    );
    renderDashboard({
      createdAt: '2026-02-01T00:00:00Z',
      summary: { total: 3, analyzed: 0, organized: 0, categories: [] },
      asked: [[['/api/stats']], [['/api/activities']], [['/api/subscription']], [['/api/app-status']]],
    });
    await waitFor(() => expect(screen.getAllByRole('button', { name: 'Try again' })).toHaveLength(4));
    for (const a of screen.getAllByRole('alert')) expect(a).toHaveTextContent('Network error. Please try again.');
    up = true;

    const figures = screen.getByRole('region', { name: 'Your stats' });
    const points = within(figures).getByRole('button', { name: 'Try again' });
    points.focus();
    act(() => points.click());
    await waitFor(() => expect(screen.getByTestId('total-points')).toHaveTextContent('42 pts'));
    // Its button went with the failure: focus is on what it brought, not the page.
    await waitFor(() => expect(figures).toHaveFocus());

    const plan = screen.getByTestId('plan-card');
    act(() => within(plan).getByRole('button', { name: 'Try again' }).click());
    expect(await within(plan).findByText('Premium Plan')).toBeInTheDocument();

    const recent = screen.getByRole('region', { name: 'Recent Activity' });
    act(() => within(recent).getByRole('button', { name: 'Try again' }).click());
    expect(await within(recent).findByText('YouTube')).toBeInTheDocument();

    const status = screen.getByTestId('status-card');
    act(() => within(status).getByRole('button', { name: 'Try again' }).click());
    expect(await within(status).findByRole('heading', { name: 'Eyevu Active' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Try again' })).toBeNull();
  });

  it('says the points, activities and plan could not be read instead of showing zeros, no history and the Free plan', async () => {
    // Every request refused; the stats ask with their own query function (the browser's offset in the URL).
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response(TOO_MANY, { status: 429 })),
    );
    renderDashboard({
      createdAt: '2026-02-01T00:00:00Z',
      summary: { total: 3, analyzed: 0, organized: 0, categories: [] },
      asked: [[['/api/stats']], [['/api/activities']], [['/api/subscription']]],
    });
    await waitFor(() => expect(screen.getAllByRole('alert')).toHaveLength(3));
    const alerts = screen.getAllByRole('alert');
    for (const a of alerts) expect(a).toHaveTextContent('Too many attempts. Please wait 5 minute(s) and try again.');
    // No figure stands for the unknown ones.
    expect(screen.getByTestId('total-points')).toHaveTextContent('– pts');
    const figures = within(screen.getByRole('region', { name: 'Your stats' }));
    expect(figures.queryByText('0')).toBeNull();
    expect(figures.queryByText('0s')).toBeNull();
    expect(screen.queryByText('0%')).toBeNull();
    expect(screen.queryByText('No activities yet')).toBeNull();
    const plan = screen.getByTestId('plan-card');
    expect(within(plan).queryByText('Free Plan')).toBeNull();
    expect(within(plan).queryByRole('link', { name: 'Upgrade' })).toBeNull();
  });
});
