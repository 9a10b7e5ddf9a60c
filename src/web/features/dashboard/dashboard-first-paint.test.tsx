// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, render, screen } from '@testing-library/react';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { keepFirstPaint } from '../../app/first-paint';
import { Dashboard } from './dashboard-page';

/**
 * The dashboard's first screen painted by the server (web-pages.ts) stays on screen until every
 * answer it was painted from has arrived: the screen then changes once, instead of filling in card
 * by card (each change a layout shift). Once it has shown its own content, the copy is gone for good.
 */
const ANSWERS: Record<string, unknown> = {
  '/api/stats': { totalPoints: 7, adsSkipped: 0, timeSaved: 0, pointsByDay: [] },
  '/api/photos': [],
  '/api/photos/summary': { total: 0, analyzed: 0, organized: 0, categories: [] },
  '/api/subscription': { status: 'inactive', tier: 'free', billingCycle: 'monthly', price: 0, endDate: null },
  '/api/app-status': { isActive: false, isMonitoring: false, lastActivity: null, activeSince: null },
  '/api/activities': [],
};

function client() {
  const qc = new QueryClient({
    defaultOptions: { queries: { staleTime: Infinity, retry: false, queryFn: () => new Promise(() => {}) } },
  });
  qc.setQueryData(['/api/auth/user'], {
    user: { id: 'u1', email: 'a@b.c', firstName: 'Ada', lastName: 'L', createdAt: new Date().toISOString() },
  });
  return qc;
}
/** Sets an answer and lets the query client's batched notification (a zero timer) reach React. */
const answer = (qc: QueryClient, key: unknown[], url: string) =>
  act(async () => {
    qc.setQueryData(key, ANSWERS[url]);
    await new Promise((r) => setTimeout(r, 0));
  });

const renderDashboard = (qc: QueryClient) =>
  render(
    <QueryClientProvider client={qc}>
      <Router hook={memoryLocation({ path: '/' }).hook}>
        <Dashboard />
      </Router>
    </QueryClientProvider>,
  );

beforeAll(() => {
  // Unanswered until a test sets the answer: the screen waits as it would for the network.
  vi.stubGlobal(
    'fetch',
    vi.fn(() => new Promise(() => {})),
  );
  window.history.replaceState(null, '', '/');
  const container = document.createElement('div');
  container.innerHTML =
    '<div id="first-paint" class="contents"><header>Eyevu</header><main><h1>Hi, Painted</h1>' +
    '<img src="/api/photos/p1/thumbnail?v=1" alt="Painted one"></main></div>';
  keepFirstPaint(container);
});
afterAll(() => vi.unstubAllGlobals());

describe('the dashboard after a server-painted first screen', () => {
  it('keeps the painted screen until its answers have all arrived, then shows only its own', async () => {
    const qc = client();
    const first = renderDashboard(qc);
    expect(screen.getByRole('heading', { name: 'Hi, Painted' })).toBeInTheDocument();
    // Answers arriving one by one do not fill the screen in piece by piece.
    await answer(qc, ['/api/stats'], '/api/stats');
    await answer(qc, ['/api/photos'], '/api/photos');
    await answer(qc, ['/api/photos', 'summary'], '/api/photos/summary');
    await answer(qc, ['/api/subscription'], '/api/subscription');
    expect(screen.getByRole('img', { name: 'Painted one' })).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Hi, Ada' })).toBeNull();
    await answer(qc, ['/api/app-status'], '/api/app-status');
    expect(screen.getByRole('heading', { name: 'Hi, Ada' })).toBeInTheDocument();
    expect(screen.getByTestId('total-points')).toHaveTextContent('7 pts');
    expect(screen.queryByRole('img', { name: 'Painted one' })).toBeNull();
    expect(screen.queryByRole('heading', { name: 'Hi, Painted' })).toBeNull();
    first.unmount();

    // Back on the dashboard later, its answers not there yet: never the screen painted at load.
    renderDashboard(client());
    expect(screen.queryByRole('heading', { name: 'Hi, Painted' })).toBeNull();
    expect(screen.getByRole('heading', { name: 'Hi, Ada' })).toBeInTheDocument();
  });
});
