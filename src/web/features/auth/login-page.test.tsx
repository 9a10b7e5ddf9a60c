// @vitest-environment jsdom
import { QueryClientProvider } from '@tanstack/react-query';
import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { Toaster } from '../../components/ui/toaster';
import { createQueryClient } from '../../lib/api';
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
