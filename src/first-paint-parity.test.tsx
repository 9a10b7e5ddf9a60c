// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { dashboardFirstContent, FIRST_CONTENT, statusBarShape, type FirstDashboard } from './server/http/web-pages';
import { Dashboard } from './web/features/dashboard/dashboard-page';
import PricingPage from './web/features/pricing/pricing-page';
import { StatusBar } from './web/app/shell/status-bar';
import { spokenText } from './web/test/spoken-text';

/**
 * The server paints the first screen from HTML before the script runs (web-pages.ts); the app then
 * renders its own. Each part painted must lay out as the app's does, or it moves when the app takes
 * over (a layout shift on every first load) and reads differently to a screen reader meanwhile.
 * Both sides are in different rooms (the server never imports the web), so this test, above both,
 * holds them together.
 */

/**
 * An element as the stylesheet lays it out: its tag (a control as the shape painted in its place),
 * its classes and its children; parts only screen readers get (absolutely placed) left out. A
 * control's classes for states a shape never has (hover, focus, disabled, a transition between
 * them) are left out too: they do not place anything on the first screen.
 */
interface Layout {
  tag: string;
  class: string | null;
  children: Layout[];
}
const SHAPED: Record<string, string> = { time: 'span', select: 'span', a: 'span', button: 'span' };
const CONTROLS = new Set(['a', 'button']);
function layoutOf(el: Element): Layout {
  const tag = el.tagName.toLowerCase();
  const cls = el.getAttribute('class');
  return {
    tag: SHAPED[tag] ?? tag,
    class:
      cls && CONTROLS.has(tag)
        ? cls
            .split(' ')
            .filter((c) => !c.includes(':') && c !== 'transition')
            .join(' ')
        : cls,
    children:
      tag === 'select' || tag === 'svg'
        ? []
        : [...el.children].filter((c) => !c.classList.contains('sr-only')).map(layoutOf),
  };
}

const painted = (html: string) => {
  const box = document.createElement('div');
  box.innerHTML = html;
  return box;
};

describe('the painted first screen against the app', () => {
  it.each([false, true])('lays the status bar out as the app does, shape for shape (active: %s)', (active) => {
    const app = render(<StatusBar active={active} />).container.querySelector('header')!;
    const bar = painted(statusBarShape(active)).querySelector('header')!;
    expect(layoutOf(bar)).toEqual(layoutOf(app));
    // A native select sizes itself to its longest option in the browser's font, which the painted
    // shape cannot know: the picker's width is its own.
    expect(app.querySelector('select')!.className).toMatch(/(^| )w-\d+( |$)/);
    // The painted shapes are not controls: nothing to press before the script runs.
    expect(bar.querySelector('button, select, input, a, time')).toBeNull();
  });

  it("paints the dashboard's greeting and points badge as the app renders them, and reads them alike", () => {
    const { app, header: painted } = dashboards(NEW_USER);
    const header = painted.querySelector('main > header')!;
    const own = app.querySelector('main > header')!;
    expect(layoutOf(header)).toEqual(layoutOf(own));
    expect(spokenText(header)).toBe(spokenText(own));
    expect(spokenText(header)).toContain('0 points');
    expect(spokenText(header)).not.toContain('pts');
    expect(header.querySelector('[aria-label]')).toBeNull();
  });

  it.each([
    ['a new user: no photos, no name, the Free plan, inactive', NEW_USER],
    ['a long first name, categories, the Pro banner, a paid plan, active and monitoring', BUSY_USER],
  ])("paints the dashboard's whole first screen as the app lays it out and words it: %s", (_, first) => {
    const { app, header: painted } = dashboards(first);
    const parts = [...painted.querySelector('main')!.children];
    const own = [...app.querySelector('main')!.children].slice(0, parts.length);
    expect(parts.map(layoutOf)).toEqual(own.map(layoutOf));
    expect(parts.map((p) => p.textContent)).toEqual(own.map((p) => p.textContent));
    expect(painted.querySelector('main')!.className).toBe(app.querySelector('main')!.className);
  });

  it("paints the pricing screen's header as the app's, so the static page's words sit where the app puts them", () => {
    const qc = queryClient();
    qc.setQueryData(['/api/auth/user'], { user: { id: 'u1', email: 'a@b.c', firstName: 'Ada', lastName: 'L' } });
    const app = render(
      <QueryClientProvider client={qc}>
        <PricingPage />
      </QueryClientProvider>,
    ).container.querySelector('main')!;
    const main = painted(FIRST_CONTENT['/pricing']!).querySelector('main')!;
    expect(main.className).toBe(app.className);
    // The painted main holds the header alone: what the app puts first.
    expect([...main.children].map(layoutOf)).toEqual([layoutOf(app.children[0]!)]);
    expect(main.textContent).toBe(app.children[0]!.textContent);
  });
});

const queryClient = () =>
  new QueryClient({
    defaultOptions: { queries: { staleTime: Infinity, retry: false, queryFn: () => new Promise(() => {}) } },
  });

const NOW = new Date();
const CREATED = new Date(NOW.getTime() - 3 * 86_400_000).toISOString();
const NEW_USER: FirstDashboard = {
  user: { firstName: '', createdAt: CREATED },
  stats: { totalPoints: 0, adsSkipped: 0, timeSaved: 0 },
  photos: [],
  summary: { total: 0, analyzed: 0 },
  subscription: { status: 'inactive', tier: 'free', endDate: null },
  appStatus: { isActive: false, isMonitoring: false, activeSince: null, lastActivity: null },
};
const BUSY_USER: FirstDashboard = {
  user: { firstName: 'Bartholomew-Alexandria Wolfeschlegelsteinhausenbergerdorff', createdAt: CREATED },
  stats: { totalPoints: 1234, adsSkipped: 11, timeSaved: 3_725 },
  photos: ['food', 'not_a_category', null, 'nature', 'people'].map((category, i) => ({
    name: `Photo ${i}`,
    url: `/api/photos/p${i}/file`,
    thumbnailUrl: `/api/photos/p${i}/thumbnail?v=1`,
    analyzed: category !== null,
    category,
  })),
  summary: { total: 5, analyzed: 4 },
  subscription: { status: 'active', tier: 'premium', endDate: '2027-01-01T12:00:00.000Z' },
  appStatus: { isActive: true, isMonitoring: true, activeSince: CREATED, lastActivity: CREATED },
};

/** The painted dashboard for `first` and the app's render of the same answers. */
function dashboards(first: FirstDashboard) {
  const qc = queryClient();
  qc.setQueryData(['/api/auth/user'], {
    user: { id: 'u1', email: 'a@b.c', firstName: first.user.firstName, lastName: 'L', createdAt: first.user.createdAt },
  });
  qc.setQueryData(['/api/stats'], { ...first.stats, pointsByDay: [] });
  qc.setQueryData(['/api/activities'], []);
  qc.setQueryData(
    ['/api/photos'],
    first.photos.map((p, i) => ({
      ...p,
      id: `p${i}`,
      uploadedAt: first.user.createdAt,
      size: 1000,
      tags: [],
      description: null,
      albumId: null,
    })),
  );
  qc.setQueryData(['/api/photos', 'summary'], { ...first.summary, organized: 0, categories: [] });
  qc.setQueryData(['/api/subscription'], { ...first.subscription, billingCycle: 'monthly', price: 999 });
  qc.setQueryData(['/api/app-status'], first.appStatus);
  const app = render(
    <QueryClientProvider client={qc}>
      <Router hook={memoryLocation({ path: '/' }).hook}>
        <Dashboard />
      </Router>
    </QueryClientProvider>,
  ).container;
  // The painted dates in the zone the app shows them in (the test's).
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return { app, header: painted(dashboardFirstContent(first, NOW, undefined, zone)) };
}
