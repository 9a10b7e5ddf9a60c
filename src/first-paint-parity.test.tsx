// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import { dashboardFirstContent, statusBarShape, type FirstDashboard } from './server/http/web-pages';
import { Dashboard } from './web/features/dashboard/dashboard-page';
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
 * its classes and its children; parts only screen readers get (absolutely placed) left out.
 */
interface Layout {
  tag: string;
  class: string | null;
  children: Layout[];
}
const SHAPED: Record<string, string> = { time: 'span', select: 'span' };
function layoutOf(el: Element): Layout {
  const tag = el.tagName.toLowerCase();
  return {
    tag: SHAPED[tag] ?? tag,
    class: el.getAttribute('class'),
    children: tag === 'select' ? [] : [...el.children].filter((c) => !c.classList.contains('sr-only')).map(layoutOf),
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
    const now = new Date();
    const createdAt = new Date(now.getTime() - 3 * 86_400_000).toISOString();
    const first: FirstDashboard = {
      user: { firstName: 'Ada', createdAt },
      stats: { totalPoints: 12, adsSkipped: 0, timeSaved: 0 },
      photos: [],
      summary: { total: 0, analyzed: 0 },
      subscription: { status: 'inactive', tier: 'free', endDate: null },
      appStatus: { isActive: false, isMonitoring: false, activeSince: null, lastActivity: null },
    };
    const qc = new QueryClient({
      defaultOptions: { queries: { staleTime: Infinity, retry: false, queryFn: () => new Promise(() => {}) } },
    });
    qc.setQueryData(['/api/auth/user'], {
      user: { id: 'u1', email: 'a@b.c', firstName: 'Ada', lastName: 'L', createdAt },
    });
    qc.setQueryData(['/api/stats'], { ...first.stats, pointsByDay: [] });
    qc.setQueryData(['/api/activities'], []);
    qc.setQueryData(['/api/photos'], []);
    qc.setQueryData(['/api/photos', 'summary'], { total: 0, analyzed: 0, organized: 0, categories: [] });
    qc.setQueryData(['/api/subscription'], { ...first.subscription, billingCycle: 'monthly', price: 0 });
    qc.setQueryData(['/api/app-status'], first.appStatus);
    const app = render(
      <QueryClientProvider client={qc}>
        <Dashboard />
      </QueryClientProvider>,
    ).container.querySelector('main > header')!;
    const header = painted(dashboardFirstContent(first, now)).querySelector('main > header')!;
    expect(layoutOf(header)).toEqual(layoutOf(app));
    expect(spokenText(header)).toBe(spokenText(app));
    expect(spokenText(header)).toContain('12 points');
    expect(spokenText(header)).not.toContain('pts');
    expect(header.querySelector('[aria-label]')).toBeNull();
  });
});
