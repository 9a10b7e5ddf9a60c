// @vitest-environment jsdom
import { QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, render, screen } from '@testing-library/react';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { FirstPaint, keepFirstPaint, pictureSrc } from '../../app/first-paint';
import { apiRequest, createQueryClient } from '../../lib/api';
import { useDashboardPhotos } from '../dashboard/recent-photos-query';
import LoginPage from './login-page';
import { forgetAnswersOnAccountChange, useAuth, useLogout } from './use-auth';

/**
 * Answers are cached for good and their keys do not name the account. A session that ends without
 * this tab's Log out (another tab's, expiry, a reset elsewhere) leaves the tab on the login screen;
 * the next account to sign in there must see its own library, not the last one's.
 */
const USERS = {
  A: { id: 'a', email: 'alice@example.com', firstName: 'Alice', lastName: 'A' },
  B: { id: 'b', email: 'bob@example.com', firstName: 'Bob', lastName: 'B' },
};
const PHOTOS = {
  A: [{ id: 'a1', name: 'alice-private-photo', analyzed: false }],
  B: [{ id: 'b1', name: 'bob-photo', analyzed: false }],
};
let signedIn: 'A' | 'B' | null = 'A';
const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
const cachesDeleted: string[] = [];

beforeEach(() => {
  signedIn = 'A';
  cachesDeleted.length = 0;
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      if (url === '/api/auth/login') {
        signedIn = 'B';
        return json({ user: USERS.B });
      }
      if (!signedIn) return json({ message: 'Not signed in' }, 401);
      if (url === '/api/auth/user') return json({ user: USERS[signedIn] });
      if (url === '/api/photos') return json(PHOTOS[signedIn]);
      if (url === '/api/photos/summary') return json({ total: 1, analyzed: 0, organized: 0, categories: [] });
      return json({});
    }),
  );
  vi.stubGlobal('caches', { delete: async (name: string) => cachesDeleted.push(name) > 0 });
});
afterEach(() => vi.unstubAllGlobals());

function Screen() {
  const { user, isLoading } = useAuth();
  if (isLoading) return <p>Checking</p>;
  return user ? <Library name={user.firstName} /> : <LoginPage />;
}
/** Each account name the library was drawn for, in turn. */
const drawnFor: string[] = [];
function Library({ name }: { name: string }) {
  drawnFor.push(name);
  const { photos } = useDashboardPhotos();
  return <p>{`${name}: ${photos.map((p) => p.name).join(', ') || 'none yet'}`}</p>;
}

async function signInAsBobAfterAliceSessionEnded(watch: boolean) {
  const qc = createQueryClient();
  const stop = watch ? forgetAnswersOnAccountChange(qc) : () => {};
  const tree = (k: number) => (
    <QueryClientProvider client={qc}>
      <Router>
        <Screen key={k} />
      </Router>
    </QueryClientProvider>
  );
  const view = render(tree(0));
  expect(await screen.findByText('Alice: alice-private-photo')).toBeInTheDocument();
  // Alice's session ends elsewhere; the next screen's auth check finds no session.
  signedIn = null;
  view.rerender(tree(1));
  await screen.findByRole('button', { name: /sign in/i });
  fireEvent.change(screen.getByLabelText('Email'), { target: { value: USERS.B.email } });
  fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'secret123' } });
  await act(async () => {
    fireEvent.submit(screen.getByRole('button', { name: /sign in/i }).closest('form')!);
  });
  const shown = (await screen.findByText(/^Bob:/)).textContent;
  stop();
  return shown;
}

it("shows the next account its own library, never the last one's, and clears the thumbnail cache", async () => {
  expect(await signInAsBobAfterAliceSessionEnded(true)).toMatch(/^Bob: (none yet|bob-photo)$/);
  expect(await screen.findByText('Bob: bob-photo')).toBeInTheDocument();
  expect(screen.queryByText(/alice-private-photo/)).not.toBeInTheDocument();
  expect(cachesDeleted).toContain('eyevu-thumbnails');
});

it('without the watch, the cached library of the last account is what the next one sees', async () => {
  // The defect this guards against, kept visible: the cache alone never asks again.
  expect(await signInAsBobAfterAliceSessionEnded(false)).toBe('Bob: alice-private-photo');
});

it('never shows the next account the first screen the server painted for the last one', async () => {
  // Alice's page came painted from the server (her name and photos, web-pages.ts) and she left the
  // dashboard before all its answers had arrived (a tap on the bottom bar), so the copy was kept.
  window.history.replaceState(null, '', '/');
  const container = document.createElement('div');
  container.innerHTML =
    '<div id="first-paint" class="contents"><header>Eyevu</header><main><h1>Hi, Alice</h1>' +
    '<img src="data:image/webp;base64,UklGRg==" data-src="/api/photos/a1/small?v=1" alt="alice-private-photo"></main></div>';
  keepFirstPaint(container);
  expect(pictureSrc('/api/photos/a1/small?v=1')).toBe('data:image/webp;base64,UklGRg==');
  await signInAsBobAfterAliceSessionEnded(true);
  // Her pictures the page carried go with the rest.
  expect(pictureSrc('/api/photos/a1/small?v=1')).toBe('/api/photos/a1/small?v=1');
  // Bob's dashboard (the login's destination) while its own answers are on their way.
  render(
    <Router hook={memoryLocation({ path: '/' }).hook}>
      <FirstPaint fallback={<p>Loading</p>} />
    </Router>,
  );
  expect(screen.getByText('Loading')).toBeInTheDocument();
  expect(screen.queryByRole('heading', { name: 'Hi, Alice' })).toBeNull();
});

/** This tab, watched for account changes, showing Alice's library from its answers. */
async function aliceInThisTab() {
  const qc = createQueryClient();
  const stop = forgetAnswersOnAccountChange(qc);
  render(
    <QueryClientProvider client={qc}>
      <Router>
        <Screen />
      </Router>
    </QueryClientProvider>,
  );
  expect(await screen.findByText('Alice: alice-private-photo')).toBeInTheDocument();
  return { qc, stop };
}

it("another tab's sign-out takes this tab to the login screen and forgets the account's answers", async () => {
  const { qc, stop } = await aliceInThisTab();
  // Signed out in another tab: the server ended the session and set the signed-out mark
  // (auth-values.ts), which every tab of this browser reads. This tab asks nothing by itself.
  signedIn = null;
  document.cookie = 'eyevu_signed_out=1; path=/';
  try {
    // The next person at the browser comes to this tab.
    await act(async () => {
      document.dispatchEvent(new Event('visibilitychange'));
      window.dispatchEvent(new Event('focus'));
    });
    expect(await screen.findByRole('button', { name: /sign in/i })).toBeInTheDocument();
    expect(screen.queryByText(/alice-private-photo/)).not.toBeInTheDocument();
    expect(qc.getQueryData(['/api/photos'])).toBeUndefined();
    expect(cachesDeleted).toContain('eyevu-thumbnails');
  } finally {
    document.cookie = 'eyevu_signed_out=; max-age=0; path=/';
    stop();
  }
});

it("another tab's sign-in as someone else replaces this tab's account and its answers when it is focused", async () => {
  const { stop } = await aliceInThisTab();
  // Alice logged out in another tab and Bob signed in there: the signed-out mark was set, then
  // cleared by his sign-in, so this tab finds no mark; the cookie it sends is now Bob's.
  signedIn = 'B';
  try {
    await act(async () => {
      window.dispatchEvent(new Event('focus'));
    });
    expect(await screen.findByText('Bob: bob-photo')).toBeInTheDocument();
    expect(screen.queryByText(/alice-private-photo/)).not.toBeInTheDocument();
    expect(cachesDeleted).toContain('eyevu-thumbnails');
  } finally {
    stop();
  }
});

it('a session ended while this tab is in use (expiry, a reset elsewhere) takes it to the login screen at its first 401', async () => {
  const { qc, stop } = await aliceInThisTab();
  // The server ended the session (a password reset on her phone ended every session): no mark is
  // set in this browser, and the tab keeps its focus, so nothing but its own requests can tell.
  signedIn = null;
  try {
    // The screen asks for its data again (a write's refresh, a screen opened from the bottom bar).
    await act(async () => {
      await qc.refetchQueries({ queryKey: ['/api/photos'] });
    });
    expect(await screen.findByRole('button', { name: /sign in/i })).toBeInTheDocument();
    expect(screen.queryByText(/alice-private-photo/)).not.toBeInTheDocument();
    expect(qc.getQueryData(['/api/photos'])).toBeUndefined();
  } finally {
    stop();
  }
});

it('a write answered 401 in a signed-in tab does the same', async () => {
  const { qc, stop } = await aliceInThisTab();
  signedIn = null;
  try {
    await act(async () => {
      await qc
        .getMutationCache()
        .build(qc, { mutationFn: () => apiRequest('POST', '/api/albums', { name: 'Trip' }) })
        .execute(undefined)
        .catch(() => {});
    });
    expect(await screen.findByRole('button', { name: /sign in/i })).toBeInTheDocument();
    expect(screen.queryByText(/alice-private-photo/)).not.toBeInTheDocument();
  } finally {
    stop();
  }
});

it("a check of who is signed in asked before this tab's Sign Out and answered after it does not show the account again", async () => {
  function SignOut() {
    const logout = useLogout();
    return (
      <button type="button" onClick={() => logout.mutate()}>
        Sign Out
      </button>
    );
  }
  const qc = createQueryClient();
  const stop = forgetAnswersOnAccountChange(qc);
  render(
    <QueryClientProvider client={qc}>
      <Router>
        <Screen />
        <SignOut />
      </Router>
    </QueryClientProvider>,
  );
  expect(await screen.findByText('Alice: alice-private-photo')).toBeInTheDocument();
  const server = vi.mocked(fetch).getMockImplementation()!;
  // Coming back to the tab asks who is signed in; the server reads it (Alice) just before the Sign
  // Out, and its answer arrives after the Sign Out's.
  let release = () => {};
  vi.mocked(fetch).mockImplementation(async (url, init) => {
    if (url === '/api/auth/logout') {
      signedIn = null;
      return json({ message: 'Logged out' });
    }
    if (url === '/api/auth/user' && signedIn) {
      const read = await server(url, init);
      await new Promise<void>((resolve) => (release = resolve));
      return read;
    }
    return server(url, init);
  });
  try {
    await act(async () => window.dispatchEvent(new Event('focus')));
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Sign Out' })));
    expect(await screen.findByRole('button', { name: /sign in/i })).toBeInTheDocument();
    drawnFor.length = 0;

    await act(async () => {
      release();
      // The answer reaches the screen through TanStack's zero-delay timers.
      await new Promise((resolve) => setTimeout(resolve, 50));
    });
    expect(qc.getQueryData(['/api/auth/user'])).toBeNull();
    expect(drawnFor).toEqual([]);
    expect(screen.getByRole('button', { name: /sign in/i })).toBeInTheDocument();
  } finally {
    stop();
  }
});
