// @vitest-environment jsdom
import type { Subscription } from '@contract/subscriptions';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createQueryClient } from '../../lib/api';
import PricingPage from './pricing-page';
import { formatTrialDate } from '../subscription';

const TRIAL_END = '2026-03-17T12:00:00.000Z';

const premiumTrial: Subscription = {
  status: 'active',
  tier: 'premium',
  billingCycle: 'monthly',
  price: 999,
  endDate: TRIAL_END,
  source: 'trial',
  cancelAtPeriodEnd: false,
  trialAvailable: false,
  trial: true,
  trialEndsAt: TRIAL_END,
  paymentDue: false,
};

function renderPricing(
  sub: Subscription | null,
  qc = new QueryClient({
    defaultOptions: { queries: { staleTime: Infinity, retry: false, queryFn: () => new Promise(() => {}) } },
  }),
) {
  qc.setQueryData(['/api/auth/user'], {
    user: { id: 'u1', email: 'a@b.c', firstName: 'Ada', lastName: 'L', createdAt: '2026-03-01T00:00:00Z' },
  });
  if (sub) qc.setQueryData(['/api/subscription'], sub);
  render(
    <QueryClientProvider client={qc}>
      <PricingPage />
    </QueryClientProvider>,
  );
}

const card = (name: string) => screen.getByRole('region', { name });

afterEach(() => vi.unstubAllGlobals());

describe('PricingPage', () => {
  it("shows the trial's real end on its plan and keeps that plan for sale", () => {
    renderPricing(premiumTrial);
    const premium = card('Premium');
    expect(
      within(premium).getByText(`Free trial ends ${formatTrialDate(TRIAL_END)}.`, { exact: false }),
    ).toHaveTextContent('Subscribe to keep Premium after that.');
    expect(within(premium).getByRole('button', { name: 'Upgrade to Premium' })).toBeEnabled();
    expect(within(premium).queryByRole('button', { name: 'Current Plan' })).toBeNull();
    expect(within(card('Basic')).queryByText(/Free trial/)).toBeNull();
  });

  it('a paid plan is the disabled current plan, with no trial text', () => {
    renderPricing({ ...premiumTrial, source: 'stripe', trial: false, trialEndsAt: null });
    const premium = card('Premium');
    expect(within(premium).getByRole('button', { name: 'Current Plan' })).toBeDisabled();
    expect(within(premium).queryByText(/Free trial/)).toBeNull();
  });

  it('calls no plan current until the plan is read, and says why when it cannot be', async () => {
    renderPricing(null);
    expect(screen.queryByRole('button', { name: 'Current Plan' })).toBeNull();
    expect(within(card('Free')).getByRole('button', { name: 'Free' })).toBeDisabled();
    cleanup();

    vi.stubGlobal(
      'fetch',
      vi.fn(
        async () =>
          new Response(JSON.stringify({ message: 'Too many attempts. Please wait 5 minute(s) and try again.' }), {
            status: 429,
          }),
      ),
    );
    renderPricing(null, createQueryClient());
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Too many attempts. Please wait 5 minute(s) and try again.',
    );
    // Not the Free plan as current: the user may pay for Premium. The server, which knows the plan,
    // answers an upgrade it cannot make with its reason.
    expect(screen.queryByRole('button', { name: 'Current Plan' })).toBeNull();
    expect(within(card('Premium')).getByRole('button', { name: 'Upgrade to Premium' })).toBeEnabled();
  });

  it("shows 'Save 20%' with yearly billing, in the theme's text colour for its green (readable in dark)", async () => {
    renderPricing(null);
    expect(screen.queryByText('Save 20%')).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'yearly' }));
    const badge = screen.getByText('Save 20%');
    expect(badge).toHaveClass('bg-success', 'text-success-fg');
    expect(badge).not.toHaveClass('text-white');
  });
});
