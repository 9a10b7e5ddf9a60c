// @vitest-environment jsdom
import { onlineManager, QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { Toaster } from '../../components/ui/toaster';
import { createQueryClient, REQUEST_WAIT_MS } from '../../lib/api';
import { dismissAllToasts } from '../../lib/toast';
import LoginPage from './login-page';

let answer: (res: Response) => void = () => {};
const fetchMock = vi.fn(
  (url: string) =>
    new Promise<Response>((resolve) => {
      if (url === '/api/auth/login') answer = resolve;
      else resolve(new Response('{}', { status: 404 }));
    }),
);
beforeEach(() => {
  fetchMock.mockClear();
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => {
  onlineManager.setOnline(true);
  vi.unstubAllGlobals();
  act(() => dismissAllToasts());
});

it('Sign In pressed from the keyboard keeps focus while it waits and after a refusal, and submits once', async () => {
  const user = userEvent.setup();
  render(
    <QueryClientProvider client={createQueryClient()}>
      <Router hook={memoryLocation({ path: '/login' }).hook}>
        <LoginPage />
      </Router>
      <Toaster />
    </QueryClientProvider>,
  );
  await user.type(screen.getByLabelText('Email'), 'ada@example.com');
  await user.type(screen.getByLabelText('Password'), 'wrong-pass');
  await user.tab();
  expect(screen.getByRole('button', { name: 'Sign In' })).toHaveFocus();
  await user.keyboard('{Enter}');

  const waiting = await screen.findByRole('button', { name: 'Signing in...' });
  // Not `disabled`: Chrome takes focus away from a disabled button, to the top of the page.
  expect(waiting).toBeEnabled();
  expect(waiting).toHaveAttribute('aria-disabled', 'true');
  expect(waiting).toHaveFocus();
  // Pressed again while waiting (or Enter in a field): nothing more is sent.
  await user.keyboard('{Enter}');
  await user.click(waiting);
  expect(fetchMock.mock.calls.filter(([url]) => url === '/api/auth/login')).toHaveLength(1);

  await act(async () =>
    answer(
      new Response(JSON.stringify({ message: 'Invalid email or password' }), {
        status: 401,
        headers: { 'Content-Type': 'application/json' },
      }),
    ),
  );
  expect(await screen.findByRole('alert')).toHaveTextContent('Invalid email or password');
  const again = screen.getByRole('button', { name: 'Sign In' });
  expect(again).toHaveFocus();
  expect(again).not.toHaveAttribute('aria-disabled');
});

it('offline, Sign In says so at once and comes back usable with what was typed, instead of waiting on Signing in...', async () => {
  const user = userEvent.setup();
  fetchMock.mockImplementation(() => Promise.reject(new TypeError('Failed to fetch')));
  render(
    <QueryClientProvider client={createQueryClient()}>
      <Router hook={memoryLocation({ path: '/login' }).hook}>
        <LoginPage />
      </Router>
      <Toaster />
    </QueryClientProvider>,
  );
  act(() => onlineManager.setOnline(false));
  await user.type(screen.getByLabelText('Email'), 'ada@example.com');
  await user.type(screen.getByLabelText('Password'), 'secret-pass');
  await user.click(screen.getByRole('button', { name: 'Sign In' }));

  expect(await screen.findByRole('alert')).toHaveTextContent('Network error. Please try again.');
  expect(screen.getByRole('button', { name: 'Sign In' })).not.toHaveAttribute('aria-disabled');
  expect(screen.getByLabelText('Email')).toHaveValue('ada@example.com');
  expect(screen.getByLabelText('Password')).toHaveValue('secret-pass');

  // The connection back, nothing is sent by itself: the user chose when to try again.
  const sent = fetchMock.mock.calls.length;
  await act(async () => onlineManager.setOnline(true));
  expect(fetchMock.mock.calls.length).toBe(sent);
});

it('a Sign In the server never answers fails after REQUEST_WAIT_MS, instead of Signing in... for ever', async () => {
  const user = userEvent.setup();
  // A connection gone dead unnoticed (a phone between networks): as the browser's fetch, no
  // answer until the request is aborted.
  fetchMock.mockImplementation(
    (_url: string, init?: RequestInit) =>
      new Promise<Response>((_, reject) =>
        init?.signal?.addEventListener('abort', () => reject(new DOMException('Aborted', 'AbortError'))),
      ),
  );
  render(
    <QueryClientProvider client={createQueryClient()}>
      <Router hook={memoryLocation({ path: '/login' }).hook}>
        <LoginPage />
      </Router>
      <Toaster />
    </QueryClientProvider>,
  );
  await user.type(screen.getByLabelText('Email'), 'ada@example.com');
  await user.type(screen.getByLabelText('Password'), 'secret-pass');
  vi.useFakeTimers();
  try {
    fireEvent.click(screen.getByRole('button', { name: 'Sign In' }));
    await act(async () => vi.advanceTimersByTimeAsync(0));
    expect(fetchMock.mock.calls.filter(([url]) => url === '/api/auth/login')).toHaveLength(1);
    expect(screen.getByRole('button', { name: 'Signing in...' })).toHaveAttribute('aria-disabled', 'true');

    // Not given up on while the server may still answer (the rendering of a refusal takes ~100 ms
    // of TanStack's and React's own timers).
    await act(async () => vi.advanceTimersByTimeAsync(REQUEST_WAIT_MS - 200));
    expect(screen.getByRole('button', { name: 'Signing in...' })).toBeInTheDocument();
    expect(screen.queryByRole('alert')).toBeNull();
    await act(async () => vi.advanceTimersByTimeAsync(400));
    expect(screen.getByRole('alert')).toHaveTextContent('Network error. Please try again.');
    expect(screen.getByRole('button', { name: 'Sign In' })).not.toHaveAttribute('aria-disabled');
    expect(screen.getByLabelText('Email')).toHaveValue('ada@example.com');
  } finally {
    vi.useRealTimers();
  }
});
