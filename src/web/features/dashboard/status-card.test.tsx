// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Toaster } from '../../components/ui/toaster';
import { createQueryClient } from '../../lib/api';
import { dismissAllToasts } from '../../lib/toast';
import { StatusCard } from './status-card';

const NOW = new Date('2026-03-10T12:00:00Z');

function renderCard(answer: (url: string) => Promise<Response>) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => answer(url)),
  );
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } });
  qc.setQueryData(['/api/app-status'], { isActive: false, isMonitoring: false, lastActivity: null, activeSince: null });
  render(
    <QueryClientProvider client={qc}>
      <StatusCard now={NOW} />
      <Toaster />
    </QueryClientProvider>,
  );
  return within(screen.getByTestId('status-card'));
}

afterEach(() => {
  vi.unstubAllGlobals();
  dismissAllToasts();
});

describe('StatusCard when the status cannot be read', () => {
  it('says why instead of claiming monitoring is off, and offers no switch', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(
        async () =>
          new Response(JSON.stringify({ message: 'Too many attempts. Please wait 5 minute(s) and try again.' }), {
            status: 429,
          }),
      ),
    );
    render(
      <QueryClientProvider client={createQueryClient()}>
        <StatusCard now={NOW} />
      </QueryClientProvider>,
    );
    const card = within(screen.getByTestId('status-card'));
    expect(await card.findByRole('alert')).toHaveTextContent(
      'Too many attempts. Please wait 5 minute(s) and try again.',
    );
    expect(card.queryByRole('heading', { name: 'Inactive' })).toBeNull();
    expect(card.queryByText('Ad monitoring is off')).toBeNull();
    expect(card.queryByText('Inactive')).toBeNull();
    expect(card.getByRole('button', { name: 'Activate' })).toBeDisabled();
  });
});

describe('StatusCard when the switch fails', () => {
  it('says so when the connection is lost, and stays inactive', async () => {
    const card = renderCard(() => Promise.reject(new TypeError('Failed to fetch')));
    await userEvent.click(card.getByRole('button', { name: 'Activate' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Error');
    expect(alert).toHaveTextContent('Network error. Please try again.');
    expect(card.getByRole('heading', { name: 'Inactive' })).toBeInTheDocument();
    expect(card.getByRole('button', { name: 'Activate' })).toBeEnabled();
  });

  it('shows the server’s reason for a refusal', async () => {
    const card = renderCard(
      async () =>
        new Response(JSON.stringify({ message: 'Too many attempts. Please wait 5 minute(s) and try again.' }), {
          status: 429,
        }),
    );
    await userEvent.click(card.getByRole('button', { name: 'Activate' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Too many attempts. Please wait 5 minute(s) and try again.',
    );
  });
});

describe('StatusCard while the switch’s request runs', () => {
  it('keeps focus on the pressed button, refuses presses, and sends one request', async () => {
    let answer: (r: Response) => void = () => {};
    const card = renderCard(() => new Promise<Response>((resolve) => (answer = resolve)));
    const user = userEvent.setup();
    const button = card.getByRole('button', { name: 'Activate' });
    await user.click(button);
    // Not disabled: Chrome moves focus off a disabled button to the page.
    expect(button).toBeEnabled();
    expect(button).toHaveAttribute('aria-disabled', 'true');
    expect(button).toHaveFocus();
    await user.click(button);
    await user.keyboard('{Enter}');
    expect(fetch).toHaveBeenCalledTimes(1);
    answer(
      new Response(
        JSON.stringify({
          status: {
            isActive: true,
            isMonitoring: true,
            lastActivity: NOW.toISOString(),
            activeSince: NOW.toISOString(),
          },
          points: 0,
          message: '',
          newAchievements: [],
        }),
        { status: 200, headers: { 'content-type': 'application/json' } },
      ),
    );
    const deactivate = await card.findByRole('button', { name: 'Deactivate' });
    expect(deactivate).toHaveFocus();
    expect(deactivate).not.toHaveAttribute('aria-disabled');
  });
});
