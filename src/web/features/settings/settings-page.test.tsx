// @vitest-environment jsdom
import { FREE_SUBSCRIPTION } from '@contract/subscriptions';
import { QueryClientProvider } from '@tanstack/react-query';
import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { createQueryClient } from '../../lib/api';
import { OnboardingModal } from '../onboarding';
import { preloadSetupGuide } from '../onboarding/onboarding-modal';
import { ONBOARDING_COMPLETED_KEY, resetOnboardingState } from '../onboarding/onboarding-store';
import SettingsPage from './settings-page';

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

beforeAll(() => preloadSetupGuide());
beforeEach(() => {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => json(url === '/api/subscription' ? FREE_SUBSCRIPTION : [])),
  );
  localStorage.clear();
});
afterEach(() => vi.unstubAllGlobals());

function renderSettings(client = createQueryClient()) {
  render(
    <QueryClientProvider client={client}>
      <Router hook={memoryLocation({ path: '/settings' }).hook}>
        <SettingsPage />
        <OnboardingModal />
      </Router>
    </QueryClientProvider>,
  );
}

it('Reset Tutorial reopens the guide and, closed, focus comes back to the tutorial controls, not the page', async () => {
  localStorage.setItem(ONBOARDING_COMPLETED_KEY, 'true');
  resetOnboardingState();
  const user = userEvent.setup();
  renderSettings();

  // Pressed from the keyboard: the button hides as the guide opens (it shows only once completed).
  screen.getByRole('button', { name: 'Reset Tutorial' }).focus();
  await user.keyboard('{Enter}');
  const guide = await screen.findByRole('dialog', { name: 'Setup Guide' });
  await user.click(within(guide).getByRole('button', { name: 'Close' }));

  await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Setup Guide' })).toBeNull());
  expect(screen.getByRole('button', { name: 'View Tutorial' })).toHaveFocus();
});

it('Activity History says the list could not be read, never that there are no activities, when its answer fails', async () => {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) =>
      url === '/api/activities'
        ? json({ message: 'Too many attempts. Please wait 2 minute(s) and try again.' }, 429)
        : json(FREE_SUBSCRIPTION),
    ),
  );
  renderSettings();
  const history = screen.getByRole('region', { name: 'Activity History' });
  expect(within(history).getByRole('status')).toHaveTextContent('Loading activities...');
  expect(await within(history).findByRole('alert')).toHaveTextContent(
    'Too many attempts. Please wait 2 minute(s) and try again.',
  );
  expect(within(history).queryByText('No activities yet')).toBeNull();
});

it('Activity History says there are none when the answer is an empty list', async () => {
  renderSettings();
  expect(await screen.findByText('No activities yet')).toBeInTheDocument();
});

it('Activity History keeps the list it has when a later refresh of it fails', async () => {
  const activity = {
    id: 'a1',
    app: 'YouTube',
    adDuration: 30,
    pointsEarned: 10,
    timeSaved: 30,
    gameType: null,
    gameScore: null,
    createdAt: new Date().toISOString(),
  };
  let refused = false;
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) =>
      url === '/api/activities'
        ? refused
          ? json({ message: 'Too many attempts. Please wait 2 minute(s) and try again.' }, 429)
          : json([activity])
        : json(FREE_SUBSCRIPTION),
    ),
  );
  const client = createQueryClient();
  renderSettings(client);
  const history = screen.getByRole('region', { name: 'Activity History' });
  expect(await within(history).findByText(/YouTube/)).toBeInTheDocument();

  refused = true;
  await act(() => client.refetchQueries({ queryKey: ['/api/activities'] }));
  // The query cache tells its observers in a task of its own.
  await act(() => new Promise((resolve) => setTimeout(resolve, 0)));
  expect(client.getQueryState(['/api/activities'])?.status).toBe('error');
  expect(within(history).getByText(/YouTube/)).toBeInTheDocument();
  expect(within(history).queryByRole('alert')).toBeNull();
});

it("offers Upgrade Plan only from an answer: a plan that could not be read says so, never 'Upgrade Plan' to a subscriber", async () => {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) =>
      url === '/api/subscription'
        ? json({ message: 'Too many attempts. Please wait 2 minute(s) and try again.' }, 429)
        : json([]),
    ),
  );
  renderSettings();
  expect(screen.queryByRole('link', { name: 'Upgrade Plan' })).toBeNull();
  expect(await screen.findByRole('alert')).toHaveTextContent(
    'Too many attempts. Please wait 2 minute(s) and try again.',
  );
  expect(screen.queryByRole('link', { name: 'Upgrade Plan' })).toBeNull();
  expect(screen.queryByRole('link', { name: 'Manage Subscription' })).toBeNull();
});

it('shows Manage Subscription to an active plan and Upgrade Plan to the Free plan', async () => {
  renderSettings();
  expect(await screen.findByRole('link', { name: 'Upgrade Plan' })).toHaveAttribute('href', '/pricing');
  cleanup();
  const active = { ...FREE_SUBSCRIPTION, status: 'active', tier: 'premium' };
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => json(url === '/api/subscription' ? active : [])),
  );
  renderSettings();
  expect(await screen.findByRole('link', { name: 'Manage Subscription' })).toHaveAttribute('href', '/billing');
  expect(screen.getByRole('switch', { name: 'Auto-detect ads' })).toBeChecked();
});

it('follows the tutorial completed or reset in another tab: Reset Tutorial appears and goes without a reload', async () => {
  resetOnboardingState();
  renderSettings();
  expect(screen.queryByRole('button', { name: 'Reset Tutorial' })).toBeNull();
  // Another tab finished the guide (its localStorage write fires 'storage' here only).
  localStorage.setItem(ONBOARDING_COMPLETED_KEY, 'true');
  act(() => window.dispatchEvent(new StorageEvent('storage', { key: ONBOARDING_COMPLETED_KEY, newValue: 'true' })));
  expect(screen.getByRole('button', { name: 'Reset Tutorial' })).toBeInTheDocument();
  // And another tab reset it.
  localStorage.removeItem(ONBOARDING_COMPLETED_KEY);
  act(() => window.dispatchEvent(new StorageEvent('storage', { key: ONBOARDING_COMPLETED_KEY, newValue: null })));
  expect(screen.queryByRole('button', { name: 'Reset Tutorial' })).toBeNull();
});

it('offers Try again where the plan and the activities could not be read, and shows them once answered', async () => {
  // A dead connection given up on, then a connection that works again.
  let up = false;
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      if (!up) throw new TypeError('Failed to fetch');
      return json(url === '/api/subscription' ? FREE_SUBSCRIPTION : []);
    }),
  );
  renderSettings();
  await waitFor(() => expect(screen.getAllByRole('button', { name: 'Try again' })).toHaveLength(2));
  for (const a of screen.getAllByRole('alert')) expect(a).toHaveTextContent('Network error. Please try again.');
  up = true;

  const history = screen.getByRole('region', { name: 'Activity History' });
  const retry = within(history).getByRole('button', { name: 'Try again' });
  retry.focus();
  act(() => retry.click());
  expect(await within(history).findByText('No activities yet')).toBeInTheDocument();
  // Its button went with the failure: focus is on the section's title, not the page.
  await waitFor(() => expect(within(history).getByRole('heading', { name: 'Activity History' })).toHaveFocus());

  act(() => screen.getByRole('button', { name: 'Try again' }).click());
  expect(await screen.findByRole('link', { name: 'Upgrade Plan' })).toBeInTheDocument();
});
