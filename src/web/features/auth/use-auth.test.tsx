// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, render, screen } from '@testing-library/react';
import { SIGNED_OUT_COOKIE } from '@contract/auth-values';
import type { ReactNode } from 'react';
import { useAuth, useLogout, userQueryOptions } from './use-auth';

/**
 * The auth check in a browser the server has marked as without a session (contract/auth-values.ts):
 * it answers "signed out" without asking, instead of a 401 every browser logs as a console error.
 * The server drops the mark at sign-in and sets it at sign-out; the check reads it each time.
 */
const ADA = { id: 'u1', email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' };
const MARK = `${SIGNED_OUT_COOKIE}=1`;
const setMark = (on: boolean) => {
  document.cookie = on ? `${MARK}; path=/` : `${SIGNED_OUT_COOKIE}=; path=/; max-age=0`;
};

function jsonResponse(body: unknown, status = 200) {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

let signedInOnServer = false;
const fetchMock = vi.fn(async (url: string, init?: RequestInit) => {
  if (url === '/api/auth/user')
    return signedInOnServer ? jsonResponse({ user: ADA }) : jsonResponse({ message: 'Not signed in' }, 401);
  if (url === '/api/auth/logout' && init?.method === 'POST') {
    // As the server's answer does: the session ends and the mark is set.
    signedInOnServer = false;
    setMark(true);
    return jsonResponse({ message: 'Signed out' });
  }
  return jsonResponse({});
});
const authChecks = () => fetchMock.mock.calls.filter(([u]) => u === '/api/auth/user').length;

function renderWho() {
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const wrap = (node: ReactNode) => <QueryClientProvider client={qc}>{node}</QueryClientProvider>;
  function Who() {
    const { user, isLoading } = useAuth();
    const logout = useLogout();
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
  return { qc, remount };
}

beforeEach(() => {
  signedInOnServer = false;
  fetchMock.mockClear();
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => {
  vi.unstubAllGlobals();
  setMark(false);
});

it('with the signed-out mark, shows signed out without asking the server, on every mount', async () => {
  setMark(true);
  const { remount } = renderWho();
  expect(await screen.findByText('signed out')).toBeInTheDocument();
  remount(1);
  remount(2);
  await act(async () => {});
  expect(screen.getByText('signed out')).toBeInTheDocument();
  expect(authChecks()).toBe(0);
});

it('once a sign-in has dropped the mark it asks and shows the user; after a sign-out it stops asking', async () => {
  setMark(true);
  const { qc, remount } = renderWho();
  expect(await screen.findByText('signed out')).toBeInTheDocument();
  // What login-page.tsx does once the server has answered (and dropped the mark).
  signedInOnServer = true;
  setMark(false);
  await act(() => qc.invalidateQueries({ queryKey: userQueryOptions().queryKey }));
  expect(await screen.findByText('signed in as Ada')).toBeInTheDocument();
  expect(authChecks()).toBe(1);

  await act(async () => screen.getByRole('button', { name: 'Log out' }).click());
  expect(await screen.findByText('signed out')).toBeInTheDocument();
  remount(1);
  await act(async () => {});
  expect(screen.getByText('signed out')).toBeInTheDocument();
  expect(authChecks()).toBe(1);
});

it('without the mark (a session cookie, or a browser from before the mark) asks the server as before', async () => {
  signedInOnServer = true;
  renderWho();
  expect(await screen.findByText('signed in as Ada')).toBeInTheDocument();
  expect(authChecks()).toBe(1);
});
