// @vitest-environment jsdom
import type { AppStatus } from '@contract/app-status';
import { notifyManager, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, render, screen } from '@testing-library/react';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { Router as SessionRouter, SignedInApp, SignedOutApp } from './app';

// The screen counts its renders; the overlays (login reward, guide) are not what this is about.
const screenRenders = vi.hoisted(() => ({ count: 0 }));
vi.mock('../features/pricing', () => ({
  PricingPage: () => {
    screenRenders.count++;
    return <h1>Choose Your Plan</h1>;
  },
}));
vi.mock('../features/dashboard', () => ({
  DashboardPage: () => (
    <main>
      <h1>Dashboard</h1>
    </main>
  ),
}));
vi.mock('../features/auth', async (original) => ({
  ...(await original<typeof import('../features/auth')>()),
  LoginPage: () => (
    <main>
      <h1>Welcome to Eyevu</h1>
    </main>
  ),
}));
// The service worker's registration is a build-time virtual module; the shell under test does not use it.
vi.mock('./pwa/register-sw', () => ({ ServiceWorkerUpdates: () => null }));
vi.mock('../features/rewards', async (original) => ({
  ...(await original<typeof import('../features/rewards')>()),
  SignedInOverlays: () => null,
}));

const STATUS_KEY = ['/api/app-status'];
const status = (isActive: boolean, lastActivity: string): AppStatus => ({
  isActive,
  isMonitoring: false,
  lastActivity,
  activeSince: null,
});

/**
 * The app status is shown by the status bar alone. Every answer (the first load's, the heartbeat's
 * every 30 s) used to re-render the whole signed-in app and the screen with it, in one blocking task.
 */
describe('SignedInApp and the app status', () => {
  // Query answers notify their components at once here (by default in a timer task), so each
  // update below has rendered when its act() returns.
  beforeAll(() => notifyManager.setScheduler((cb) => cb()));
  afterAll(() => notifyManager.setScheduler((cb) => setTimeout(cb, 0)));

  it('re-renders only the status bar when the app status answers, and shows Active when it flips', () => {
    const qc = new QueryClient({
      defaultOptions: { queries: { staleTime: Infinity, queryFn: () => new Promise(() => {}), retry: false } },
    });
    render(
      <QueryClientProvider client={qc}>
        <Router hook={memoryLocation({ path: '/pricing' }).hook}>
          <SignedInApp />
        </Router>
      </QueryClientProvider>,
    );
    expect(screen.getByRole('heading', { name: 'Choose Your Plan' })).toBeInTheDocument();
    const before = screenRenders.count;

    act(() => qc.setQueryData(STATUS_KEY, status(false, '2026-11-24T12:00:00Z')));
    act(() => qc.setQueryData(STATUS_KEY, status(true, '2026-11-24T12:00:30Z')));
    expect(screen.getByText('Active')).toBeInTheDocument();
    act(() => qc.setQueryData(STATUS_KEY, status(true, '2026-11-24T12:01:00Z')));

    expect(screenRenders.count).toBe(before);
  });
});

const USER_KEY = ['/api/auth/user'];
const signedIn = () => {
  const qc = new QueryClient({
    defaultOptions: { queries: { staleTime: Infinity, queryFn: () => new Promise(() => {}), retry: false } },
  });
  qc.setQueryData(USER_KEY, { user: { id: 'u1', email: 'ann@example.com', firstName: 'Ann' } });
  return qc;
};

it('a signed-out screen reached signed in (Back after signing in, a bookmark) goes home, not to Page not found', async () => {
  const qc = signedIn();
  for (const path of ['/login', '/register', '/forgot-password']) {
    const location = memoryLocation({ path, record: true });
    const view = render(
      <QueryClientProvider client={qc}>
        <Router hook={location.hook}>
          <SignedInApp />
        </Router>
      </QueryClientProvider>,
    );
    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Page not found' })).toBeNull();
    // Replaced, so Back does not land on it again.
    expect(location.history).toEqual(['/']);
    view.unmount();
  }
});

it('signing out stays on the login screen: the location moves before the app learns the session ended', () => {
  const qc = signedIn();
  const location = memoryLocation({ path: '/settings', record: true });
  render(
    <QueryClientProvider client={qc}>
      <Router hook={location.hook}>
        <SignedInApp />
      </Router>
    </QueryClientProvider>,
  );
  // What useLogout does on success: the answer emptied (its notification batched), then /login.
  act(() => {
    qc.setQueryData(USER_KEY, null);
    location.navigate('/login');
  });
  expect(location.history.at(-1)).toBe('/login');
});

describe('the document title', () => {
  it("names the screen shown, signed in, and follows a move to another one (it read 'Eyevu' everywhere)", () => {
    const location = memoryLocation({ path: '/pricing' });
    render(
      <QueryClientProvider client={signedIn()}>
        <Router hook={location.hook}>
          <SignedInApp />
        </Router>
      </QueryClientProvider>,
    );
    expect(document.title).toBe('Pricing - Eyevu');
    act(() => location.navigate('/'));
    expect(document.title).toBe('Dashboard - Eyevu');
    act(() => location.navigate('/no-such-screen'));
    expect(screen.getByRole('heading', { name: 'Page not found' })).toBeInTheDocument();
    expect(document.title).toBe('Page not found - Eyevu');
  });

  it('names the signed-out screens; a signed-in screen asked for shows the login, also below it (it was blank)', () => {
    const qc = new QueryClient();
    const location = memoryLocation({ path: '/gallery/7' });
    render(
      <QueryClientProvider client={qc}>
        <Router hook={location.hook}>
          <SignedOutApp />
        </Router>
      </QueryClientProvider>,
    );
    expect(screen.getByRole('heading', { name: 'Welcome to Eyevu' })).toBeInTheDocument();
    expect(document.title).toBe('Sign In - Eyevu');
    act(() => location.navigate('/no/such/screen'));
    expect(screen.getByRole('heading', { name: 'Page not found' })).toBeInTheDocument();
    expect(document.title).toBe('Page not found - Eyevu');
  });
});

it("a sign-in on '/' (the login there, the dashboard after, the same address) puts focus on the dashboard's heading", async () => {
  const qc = new QueryClient({
    defaultOptions: { queries: { staleTime: Infinity, queryFn: () => new Promise(() => {}), retry: false } },
  });
  qc.setQueryData(USER_KEY, null);
  // jsdom does not scroll.
  const scroll = vi.spyOn(window, 'scrollTo').mockImplementation(() => {});
  onTestFinished(() => scroll.mockRestore());
  render(
    <QueryClientProvider client={qc}>
      <Router hook={memoryLocation({ path: '/' }).hook}>
        <SessionRouter />
      </Router>
    </QueryClientProvider>,
  );
  expect(await screen.findByRole('heading', { name: 'Welcome to Eyevu' })).toBeInTheDocument();
  expect(document.body).toHaveFocus();
  // The login form's answer: the session is there, and the address stays '/'.
  act(() => qc.setQueryData(USER_KEY, { user: { id: 'u1', email: 'ann@example.com', firstName: 'Ann' } }));
  expect(await screen.findByRole('heading', { name: 'Dashboard' })).toHaveFocus();
});
