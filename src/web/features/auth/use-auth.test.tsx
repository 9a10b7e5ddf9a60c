// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, render, screen } from '@testing-library/react';
import type { ReactNode } from 'react';

/**
 * The auth check on a page the server sent without a session cookie (web-pages.ts marks it): no
 * session can exist, so it answers "signed out" without asking, instead of a 401 every browser
 * logs as a console error. A sign-in makes it ask again; a sign-out stops it asking.
 */
const ADA = { id: 'u1', email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' };

function jsonResponse(body: unknown, status = 200) {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

let signedInOnServer = false;
const fetchMock = vi.fn(async (url: string, init?: RequestInit) => {
  if (url === '/api/auth/user')
    return signedInOnServer ? jsonResponse({ user: ADA }) : jsonResponse({ message: 'Not signed in' }, 401);
  if (url === '/api/auth/logout' && init?.method === 'POST') {
    signedInOnServer = false;
    return jsonResponse({ ok: true });
  }
  return jsonResponse({});
});
const authChecks = () => fetchMock.mock.calls.filter(([u]) => u === '/api/auth/user').length;

/** use-auth.ts as a page loads it: it reads the page's markers once, when the module runs. */
async function loadPage(marker: boolean) {
  document.head.innerHTML = marker ? '<meta name="eyevu-session" content="none">' : '';
  vi.resetModules();
  const auth = await import('./use-auth');
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const wrap = (node: ReactNode) => <QueryClientProvider client={qc}>{node}</QueryClientProvider>;
  function Who() {
    const { user, isLoading } = auth.useAuth();
    const logout = auth.useLogout();
    if (isLoading) return <p>loading</p>;
    return (
      <>
        <p>{user ? `signed in as ${user.firstName}` : 'signed out'}</p>
        <button type="button" onClick={() => logout.mutate()}>
          Log out
        </button>
      </>
    );
  }
  const view = render(wrap(<Who key={0} />));
  /** Another screen mounting the check (staleTime 0: every mount asks again). */
  const remount = (key: number) => view.rerender(wrap(<Who key={key} />));
  return { auth, qc, remount };
}

beforeEach(() => {
  signedInOnServer = false;
  fetchMock.mockClear();
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => {
  vi.unstubAllGlobals();
  document.head.innerHTML = '';
});

it('on a page marked as without a session, shows signed out without asking the server', async () => {
  const { remount } = await loadPage(true);
  expect(await screen.findByText('signed out')).toBeInTheDocument();
  remount(1);
  remount(2);
  await act(async () => {});
  expect(screen.getByText('signed out')).toBeInTheDocument();
  expect(authChecks()).toBe(0);
});

it('after a sign-in asks again and shows the user; after a sign-out stops asking', async () => {
  const { auth, qc, remount } = await loadPage(true);
  expect(await screen.findByText('signed out')).toBeInTheDocument();
  signedInOnServer = true;
  await act(() => auth.sessionStarted(qc));
  expect(await screen.findByText('signed in as Ada')).toBeInTheDocument();
  expect(authChecks()).toBe(1);

  await act(async () => screen.getByRole('button', { name: 'Log out' }).click());
  expect(await screen.findByText('signed out')).toBeInTheDocument();
  remount(1);
  await act(async () => {});
  expect(screen.getByText('signed out')).toBeInTheDocument();
  expect(authChecks()).toBe(1);
});

it('on an unmarked page (a session cookie, or the offline copy) asks the server as before', async () => {
  signedInOnServer = true;
  await loadPage(false);
  expect(await screen.findByText('signed in as Ada')).toBeInTheDocument();
  expect(authChecks()).toBe(1);
});
