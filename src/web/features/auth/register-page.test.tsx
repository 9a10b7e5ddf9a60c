// @vitest-environment jsdom
import { QueryClientProvider } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { createQueryClient } from '../../lib/api';
import RegisterPage from './register-page';

beforeEach(() =>
  vi.stubGlobal(
    'fetch',
    vi.fn(async () => new Response('{}', { status: 404 })),
  ),
);
afterEach(() => vi.unstubAllGlobals());

it('tells the password rule under the field, read with it, since the placeholder is cut on a phone', async () => {
  const user = userEvent.setup();
  render(
    <QueryClientProvider client={createQueryClient()}>
      <Router hook={memoryLocation({ path: '/register' }).hook}>
        <RegisterPage />
      </Router>
    </QueryClientProvider>,
  );
  const password = screen.getByLabelText('Password');
  // The spec's placeholder stays as it is.
  expect(password).toHaveAttribute('placeholder', 'Create a password (min 6 characters)');
  expect(screen.getByText('At least 6 characters')).toBeVisible();
  expect(password).toHaveAccessibleDescription('At least 6 characters');

  // A refusal is read after the rule.
  await user.type(password, 'abc');
  await user.click(screen.getByRole('button', { name: 'Create Account' }));
  expect(await screen.findByText('Password must be at least 6 characters')).toBeInTheDocument();
  expect(password).toHaveAccessibleDescription('At least 6 characters Password must be at least 6 characters');
});
