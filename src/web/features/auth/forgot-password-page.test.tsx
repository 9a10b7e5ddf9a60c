// @vitest-environment jsdom
import { QueryClientProvider } from '@tanstack/react-query';
import { act, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { Toaster } from '../../components/ui/toaster';
import { createQueryClient } from '../../lib/api';
import { dismissAllToasts } from '../../lib/toast';
import ForgotPasswordPage from './forgot-password-page';

const MAILED = 'If an account exists for that email, a reset link has been sent.';
const TOKEN = 'Qm9vdHN0cmFwLXRva2VuLWZvci10aGUtdGVzdC1vbmx5';
const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

let forgotAnswer: { message: string; resetToken?: string };
const posted: Array<{ url: string; body: unknown }> = [];

beforeEach(() => {
  posted.length = 0;
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      posted.push({ url, body: JSON.parse(String(init?.body ?? 'null')) });
      if (url === '/api/auth/forgot-password') return json(forgotAnswer);
      if (url === '/api/auth/reset-password') return json({ message: 'Password reset successfully' });
      return json({ message: 'Not found' }, 404);
    }),
  );
});
afterEach(() => {
  vi.unstubAllGlobals();
  act(() => dismissAllToasts());
});

function renderPage() {
  render(
    <QueryClientProvider client={createQueryClient()}>
      <Router hook={memoryLocation({ path: '/forgot-password' }).hook}>
        <ForgotPasswordPage />
      </Router>
      <Toaster />
    </QueryClientProvider>,
  );
}

async function askForReset(user: ReturnType<typeof userEvent.setup>) {
  await user.type(screen.getByLabelText('Email'), 'ada@example.com');
  await user.click(screen.getByRole('button', { name: 'Send reset link' }));
}

it('with a mail transport (no token in the answer) the mailed token can be entered and the reset finished', async () => {
  forgotAnswer = { message: MAILED };
  const user = userEvent.setup();
  renderPage();
  await askForReset(user);

  expect(await screen.findByText('Reset email sent')).toBeInTheDocument();
  const tokenField = await screen.findByLabelText('Reset Token');
  expect(tokenField).toHaveValue('');
  // The pressed button went with its form: focus is on the field to fill, not lost to the page.
  await waitFor(() => expect(tokenField).toHaveFocus());

  await user.type(tokenField, TOKEN);
  await user.type(screen.getByLabelText('New Password'), 'new-secret1');
  await user.click(screen.getByRole('button', { name: 'Reset password' }));
  expect(await screen.findByText('Password reset successfully')).toBeInTheDocument();
  expect(posted.at(-1)).toEqual({
    url: '/api/auth/reset-password',
    body: { token: TOKEN, password: 'new-secret1' },
  });
});

it('a token mailed earlier can be entered without asking for another', async () => {
  const user = userEvent.setup();
  renderPage();
  await user.click(screen.getByRole('button', { name: 'I already have a reset token' }));
  const tokenField = await screen.findByLabelText('Reset Token');
  await waitFor(() => expect(tokenField).toHaveFocus());
  expect(posted).toEqual([]);
});

it('in the local demo the token is filled in and focus goes to the new password', async () => {
  forgotAnswer = { message: 'Demo mode: use the reset token below.', resetToken: TOKEN };
  const user = userEvent.setup();
  renderPage();
  await askForReset(user);
  expect(await screen.findByLabelText('Reset Token')).toHaveValue(TOKEN);
  await waitFor(() => expect(screen.getByLabelText('New Password')).toHaveFocus());
});
