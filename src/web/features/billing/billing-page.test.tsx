// @vitest-environment jsdom
import type { Subscription } from '@contract/subscriptions';
import { onlineManager, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { FREE_SUBSCRIPTION } from '@contract/subscriptions';
import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Toaster } from '../../components/ui/toaster';
import { createQueryClient, PAYMENT_WAIT_MS, REQUEST_WAIT_MS } from '../../lib/api';
import { dismissAllToasts } from '../../lib/toast';
import { formatTrialDate } from '../subscription';
import BillingPage, { ACTIVATION_POLL_MS, ACTIVATION_WAIT_MS } from './billing-page';

const TRIAL_END = '2026-03-17T12:00:00.000Z';

const subscription = (over: Partial<Subscription> = {}): Subscription => ({
  status: 'active',
  tier: 'premium',
  billingCycle: 'yearly',
  price: 9590,
  endDate: TRIAL_END,
  source: 'trial',
  cancelAtPeriodEnd: false,
  trialAvailable: false,
  trial: true,
  trialEndsAt: TRIAL_END,
  paymentDue: false,
  ...over,
});

/** A paid (Stripe) plan that unlocks nothing while Stripe still holds it, in `status`. */
const paymentDueSubscription = (status: Subscription['status']) =>
  subscription({ status, tier: 'free', price: 0, source: 'stripe', trial: false, trialEndsAt: null, paymentDue: true });

function renderBilling(sub: Subscription) {
  const qc = new QueryClient({
    defaultOptions: { queries: { staleTime: Infinity, retry: false, queryFn: () => new Promise(() => {}) } },
  });
  qc.setQueryData(['/api/subscription'], sub);
  qc.setQueryData(['/api/billing/invoices'], { invoices: [] });
  render(
    <QueryClientProvider client={qc}>
      <BillingPage />
    </QueryClientProvider>,
  );
  return screen.getByRole('region', { name: 'Current Plan' });
}

const row = (plan: HTMLElement, label: string) => within(plan).getByText(label).nextElementSibling;

describe('BillingPage', () => {
  it('shows a running trial as free, with its real end and how to keep the plan', () => {
    const plan = renderBilling(subscription());
    const end = formatTrialDate(TRIAL_END);
    expect(within(plan).getByText('Active', { exact: true })).toBeInTheDocument();
    expect(within(plan).getByText('Free trial', { exact: true })).toBeInTheDocument();
    expect(row(plan, 'Plan Type')).toHaveTextContent('Premium');
    expect(row(plan, 'Price')).toHaveTextContent('$95.90/year after the trial');
    expect(row(plan, 'Next Billing')).toHaveTextContent(end);
    expect(within(plan).getByText(`Your free trial ends on ${end}.`, { exact: false })).toHaveTextContent(
      'Nothing is charged and it does not renew',
    );
    expect(within(plan).getByRole('link', { name: 'Subscribe to Premium' })).toHaveAttribute(
      'href',
      '/checkout?tier=premium&billing=yearly',
    );
    expect(within(plan).getByRole('button', { name: 'Cancel Subscription' })).toBeInTheDocument();
  });

  it('shows a paid plan without any trial text', () => {
    const plan = renderBilling(
      subscription({ source: 'stripe', trial: false, trialEndsAt: null, tier: 'basic', price: 4790 }),
    );
    expect(within(plan).queryByText('Free trial', { exact: true })).toBeNull();
    expect(row(plan, 'Price')).toHaveTextContent(/^\$47\.90\/year$/);
    expect(within(plan).queryByRole('link', { name: /Subscribe to/ })).toBeNull();
  });

  it('a paid plan whose renewal failed: says why its features stopped and offers to stop the charges', () => {
    const plan = renderBilling(paymentDueSubscription('past_due'));
    expect(within(plan).getByText('Free', { exact: true })).toBeInTheDocument();
    expect(within(plan).getByRole('status')).toHaveTextContent("Your plan's renewal payment did not go through");
    fireEvent.click(within(plan).getByRole('button', { name: 'Cancel Subscription' }));
    expect(screen.getByRole('dialog', { name: 'Cancel subscription?' })).toHaveTextContent(
      'Your account returns to the Free plan right away.',
    );
    expect(within(plan).queryByRole('link', { name: 'View Pricing Plans' })).toBeNull();
  });

  it.each([
    ['paused', 'it has no payment method to renew with'],
    ['expired', 'has not been confirmed yet'],
  ] as const)('a paid plan Stripe still holds, %s: the note says what that state means', (status, words) => {
    const plan = renderBilling(paymentDueSubscription(status));
    expect(within(plan).getByRole('status')).toHaveTextContent(words);
    expect(within(plan).getByRole('button', { name: 'Cancel Subscription' })).toBeInTheDocument();
  });

  it('a cancelled or never-paid account is simply on the Free plan', () => {
    const plan = renderBilling(
      subscription({ status: 'canceled', tier: 'free', price: 0, source: 'stripe', trial: false, trialEndsAt: null }),
    );
    expect(within(plan).getByText('You are on the Free plan.')).toBeInTheDocument();
    expect(within(plan).queryByRole('button', { name: 'Cancel Subscription' })).toBeNull();
  });

  it('a plan or history that could not be read says so with Try again, never the Free plan or no history', async () => {
    // A dead connection given up on (getJson's TypeError), then a connection that works again.
    let up = false;
    const qc = new QueryClient({
      defaultOptions: {
        queries: {
          staleTime: Infinity,
          retry: false,
          queryFn: ({ queryKey }) => {
            if (!up) return Promise.reject(new TypeError('No answer within 30000 ms'));
            return Promise.resolve(
              queryKey[0] === '/api/subscription'
                ? subscription({ source: 'stripe', trial: false, trialEndsAt: null })
                : { invoices: [] },
            );
          },
        },
      },
    });
    render(
      <QueryClientProvider client={qc}>
        <BillingPage />
      </QueryClientProvider>,
    );
    const plan = screen.getByRole('region', { name: 'Current Plan' });
    expect(await within(plan).findByRole('alert')).toHaveTextContent('Network error. Please try again.');
    expect(within(plan).queryByText('You are on the Free plan.')).toBeNull();
    expect(within(plan).queryByText('Free', { exact: true })).toBeNull();
    expect(within(plan).queryByRole('link', { name: 'View Pricing Plans' })).toBeNull();
    expect(screen.queryByLabelText('Not included')).toBeNull();
    const history = screen.getByRole('region', { name: 'Billing History' });
    expect(within(history).getByRole('alert')).toHaveTextContent('Network error. Please try again.');
    expect(within(history).queryByText('No billing history available')).toBeNull();

    up = true;
    const retry = within(plan).getByRole('button', { name: 'Try again' });
    retry.focus();
    act(() => retry.click());
    expect(await within(plan).findByText('Active', { exact: true })).toBeInTheDocument();
    expect(row(plan, 'Plan Type')).toHaveTextContent('Premium');
    // Its button went with the failure: focus is on the plan it brought, not the page.
    await waitFor(() => expect(plan).toHaveFocus());
    act(() => within(history).getByRole('button', { name: 'Try again' }).click());
    expect(await within(history).findByText('No billing history available')).toBeInTheDocument();
  });
});

describe('BillingPage back from a payment (the return address)', () => {
  const PAID = subscription({
    source: 'stripe',
    trial: false,
    trialEndsAt: null,
    tier: 'basic',
    billingCycle: 'monthly',
    price: 499,
  });

  /** The page at `url`, its subscription answered by `answers` in turn (the last one repeated). */
  function renderReturn(url: string, answers: Subscription[]) {
    window.history.replaceState(null, '', url);
    const asked = vi.fn(() => answers[Math.min(asked.mock.calls.length - 1, answers.length - 1)]!);
    const qc = new QueryClient({
      defaultOptions: {
        queries: {
          staleTime: Infinity,
          retry: false,
          queryFn: ({ queryKey }) => Promise.resolve(queryKey[0] === '/api/subscription' ? asked() : { invoices: [] }),
        },
      },
    });
    render(
      <QueryClientProvider client={qc}>
        <BillingPage />
        <Toaster />
      </QueryClientProvider>,
    );
    return { asked, plan: () => screen.getByRole('region', { name: 'Current Plan' }) };
  }
  // A few short steps: the query's answer reaches the screen through several zero-delay timers.
  const flush = async () => {
    for (let i = 0; i < 5; i++) await act(async () => vi.advanceTimersByTimeAsync(20));
  };

  // A week before the plans' end: the server never answers a plan active past its end.
  beforeEach(() => vi.useFakeTimers({ now: new Date('2026-03-10T12:00:00Z') }));
  afterEach(() => {
    act(() => dismissAllToasts());
    vi.useRealTimers();
    window.history.replaceState(null, '', '/');
  });

  it("a payment that failed on the bank's page says so, and starts no wait for a plan", async () => {
    const { asked, plan } = renderReturn('/billing?success=true&payment_intent=pi_1&redirect_status=failed', [
      FREE_SUBSCRIPTION,
    ]);
    await flush();
    expect(screen.getByText('Payment Failed')).toBeInTheDocument();
    expect(screen.queryByText('Payment Successful')).toBeNull();
    expect(window.location.search).toBe('');
    expect(within(plan()).getByText('You are on the Free plan.')).toBeInTheDocument();
    const calls = asked.mock.calls.length;
    await act(async () => vi.advanceTimersByTimeAsync(ACTIVATION_POLL_MS * 3));
    expect(asked.mock.calls.length).toBe(calls);
  });

  it('a paid plan whose webhook is still on its way: says it is activating and shows it once the server has it', async () => {
    const { asked, plan } = renderReturn('/billing?success=true&payment_intent=pi_1&redirect_status=succeeded', [
      FREE_SUBSCRIPTION,
      PAID,
    ]);
    await flush();
    expect(screen.getByText('Payment Successful')).toBeInTheDocument();
    expect(within(plan()).getByRole('status')).toHaveTextContent('Activating your new plan');
    expect(within(plan()).getByText('Free', { exact: true })).toBeInTheDocument();

    await act(async () => vi.advanceTimersByTimeAsync(ACTIVATION_POLL_MS));
    await flush();
    expect(within(plan()).getByText('Active', { exact: true })).toBeInTheDocument();
    expect(row(plan(), 'Plan Type')).toHaveTextContent('Basic');
    expect(within(plan()).queryByText(/Activating your new plan/)).toBeNull();
    // Once it is there, the page stops asking.
    const calls = asked.mock.calls.length;
    await act(async () => vi.advanceTimersByTimeAsync(ACTIVATION_POLL_MS * 3));
    expect(asked.mock.calls.length).toBe(calls);
  });

  it('stops asking after a minute when the plan never arrives', async () => {
    const { asked, plan } = renderReturn('/billing?success=true', [FREE_SUBSCRIPTION]);
    await flush();
    expect(within(plan()).getByRole('status')).toHaveTextContent('Activating your new plan');
    const first = asked.mock.calls.length;
    await act(async () => vi.advanceTimersByTimeAsync(ACTIVATION_POLL_MS));
    expect(asked.mock.calls.length).toBe(first + 1);
    await act(async () => vi.advanceTimersByTimeAsync(ACTIVATION_WAIT_MS));
    await flush();
    expect(within(plan()).queryByText(/Activating your new plan/)).toBeNull();
    expect(within(plan()).getByText('You are on the Free plan.')).toBeInTheDocument();
    // Not without a word: the payment may still be confirmed (a bank debit, a webhook held up).
    expect(within(plan()).getByRole('status')).toHaveTextContent('Your payment is still being confirmed.');
    const calls = asked.mock.calls.length;
    await act(async () => vi.advanceTimersByTimeAsync(ACTIVATION_POLL_MS * 3));
    expect(asked.mock.calls.length).toBe(calls);
  });
});

describe('Cancel Subscription without a connection', () => {
  afterEach(() => {
    act(() => dismissAllToasts());
    onlineManager.setOnline(true);
    vi.unstubAllGlobals();
  });

  it('says so at once and lets the dialog close, instead of a confirmation stuck on Processing... that sends later', async () => {
    const user = userEvent.setup();
    const sent = vi.fn(async () => Promise.reject(new TypeError('Failed to fetch')));
    vi.stubGlobal('fetch', sent);
    // The app's own client: its defaults decide what a mutation does offline.
    const qc = createQueryClient();
    qc.setQueryData(['/api/subscription'], subscription());
    qc.setQueryData(['/api/billing/invoices'], { invoices: [] });
    render(
      <QueryClientProvider client={qc}>
        <BillingPage />
        <Toaster />
      </QueryClientProvider>,
    );
    act(() => onlineManager.setOnline(false));
    await user.click(screen.getByRole('button', { name: 'Cancel Subscription' }));
    const dialog = screen.getByRole('dialog', { name: 'Cancel subscription?' });
    await user.click(within(dialog).getByRole('button', { name: 'Yes, cancel' }));

    expect(await screen.findByText('Cancel failed')).toBeInTheDocument();
    expect(screen.getByText('Network error. Please try again.')).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Yes, cancel' })).not.toHaveAttribute('aria-disabled');
    await user.click(within(dialog).getByRole('button', { name: 'Keep my plan' }));
    expect(screen.queryByRole('dialog', { name: 'Cancel subscription?' })).toBeNull();

    // Back online, nothing goes by itself: the plan stays unless the user cancels again.
    const calls = sent.mock.calls.length;
    await act(async () => onlineManager.setOnline(true));
    expect(sent.mock.calls.length).toBe(calls);
  });
});

describe('Cancel Subscription the server never answers', () => {
  afterEach(() => {
    act(() => dismissAllToasts());
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('waits out a slow payment provider, then says so and lets the dialog close, instead of Processing... for ever', async () => {
    const user = userEvent.setup();
    // A connection gone dead unnoticed: as the browser's fetch, no answer until it is aborted.
    const sent = vi.fn(
      (_url: string, init?: RequestInit) =>
        new Promise<Response>((_, reject) =>
          init?.signal?.addEventListener('abort', () => reject(new DOMException('Aborted', 'AbortError'))),
        ),
    );
    vi.stubGlobal('fetch', sent);
    const qc = createQueryClient();
    qc.setQueryData(['/api/subscription'], subscription());
    qc.setQueryData(['/api/billing/invoices'], { invoices: [] });
    render(
      <QueryClientProvider client={qc}>
        <BillingPage />
        <Toaster />
      </QueryClientProvider>,
    );
    await user.click(screen.getByRole('button', { name: 'Cancel Subscription' }));
    const dialog = screen.getByRole('dialog', { name: 'Cancel subscription?' });
    vi.useFakeTimers();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Yes, cancel' }));
    await act(async () => vi.advanceTimersByTimeAsync(0));
    expect(sent).toHaveBeenCalledWith('/api/subscription/cancel', expect.anything());

    // The server waits on the payment provider (20 s a try) and may answer after REQUEST_WAIT_MS.
    await act(async () => vi.advanceTimersByTimeAsync(REQUEST_WAIT_MS + 5000));
    expect(within(dialog).getByRole('button', { name: 'Processing...' })).toHaveAttribute('aria-disabled', 'true');
    expect(screen.queryByText('Cancel failed')).toBeNull();

    await act(async () => vi.advanceTimersByTimeAsync(PAYMENT_WAIT_MS - REQUEST_WAIT_MS - 5000 + 400));
    expect(screen.getByText('Cancel failed')).toBeInTheDocument();
    expect(screen.getByText('Network error. Please try again.')).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Yes, cancel' })).not.toHaveAttribute('aria-disabled');
  });
});
