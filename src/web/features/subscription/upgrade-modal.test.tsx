// @vitest-environment jsdom
import { FREE_SUBSCRIPTION } from '@contract/subscriptions';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { useState } from 'react';
import { Toaster } from '../../components/ui/toaster';
import { getQueryFn } from '../../lib/api';
import { forgetServerClock } from '../../lib/server-clock';
import { formatTrialDate } from './trial';
import { UpgradeModal } from './upgrade-modal';

function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}) {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });
}

function Harness() {
  const [open, setOpen] = useState(true);
  return <UpgradeModal open={open} onOpenChange={setOpen} note="Premium subscription required for ad overlay" />;
}

const FREE = FREE_SUBSCRIPTION;

function setup(answer: () => Promise<Response>, current: object = FREE, headers: Record<string, string> = {}) {
  const fetchMock = vi.fn(async (url: string, init?: RequestInit) => {
    if (url === '/api/subscription' && init?.method === 'POST') return answer();
    return jsonResponse(current, 200, headers);
  });
  vi.stubGlobal('fetch', fetchMock);
  const qc = new QueryClient({
    defaultOptions: { queries: { queryFn: getQueryFn({ on401: 'throw' }), retry: false, staleTime: Infinity } },
  });
  render(
    <QueryClientProvider client={qc}>
      <Harness />
      <Toaster />
    </QueryClientProvider>,
  );
  return fetchMock;
}

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
  forgetServerClock();
});

describe('UpgradeModal', () => {
  it('defaults to monthly, sends the modal price and closes with a success toast', async () => {
    let resolve!: (r: Response) => void;
    const fetchMock = setup(() => new Promise<Response>((r) => (resolve = r)));
    const dialog = screen.getByRole('dialog', { name: 'Upgrade to Premium' });
    expect(dialog).toHaveTextContent('Browse your photos instead of watching ads');
    expect(dialog).toHaveTextContent('Premium subscription required for ad overlay');
    expect(screen.getByRole('radio', { name: /monthly/i })).toHaveAttribute('aria-checked', 'true');
    fireEvent.click(screen.getByRole('radio', { name: /yearly/i }));
    fireEvent.click(screen.getByRole('button', { name: 'Start Free Trial' }));
    expect(await screen.findByRole('button', { name: 'Processing...' })).toHaveAttribute('aria-disabled', 'true');

    const [, init] = fetchMock.mock.calls.find(([u, i]) => u === '/api/subscription' && i?.method === 'POST')!;
    expect(JSON.parse(String(init!.body))).toMatchObject({ plan: 'yearly', status: 'active', price: 4999 });
    resolve(jsonResponse({ status: 'active', tier: 'premium', billingCycle: 'yearly', price: 4999 }, 201));

    expect(await screen.findByText('Subscription activated!')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Upgrade to Premium' })).toBeNull());
  });

  it('stays open with a destructive toast when the subscription fails', async () => {
    setup(async () => jsonResponse({ message: 'boom' }, 500));
    fireEvent.click(screen.getByRole('button', { name: 'Start Free Trial' }));
    expect(await screen.findByText('Subscription failed')).toBeInTheDocument();
    expect(screen.getByText('Please try again later.')).toBeInTheDocument();
    expect(screen.getByRole('dialog', { name: 'Upgrade to Premium' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Start Free Trial' })).toBeEnabled();
  });

  it('says the trial lasts 7 days from today and costs nothing', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-03-10T12:00:00Z') });
    setup(async () => jsonResponse({}, 201));
    const end = formatTrialDate(new Date('2026-03-17T12:00:00Z'));
    const terms = await screen.findByText(new RegExp(`^Your free trial would end on ${end}\\.`));
    expect(terms).toHaveTextContent('Nothing is charged: to keep Premium after that, subscribe at checkout.');
    expect(screen.getByRole('button', { name: 'Start Free Trial' })).toHaveAccessibleDescription(terms.textContent!);
    expect(screen.getByText('7-day free trial • Cancel anytime')).toBeInTheDocument();
  });

  it("counts the 7 days from the server's date, not a device clock days behind", async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-03-10T12:00:00Z') });
    setup(async () => jsonResponse({}, 201), FREE, { Date: new Date('2026-03-20T12:00:00Z').toUTCString() });
    const end = formatTrialDate(new Date('2026-03-27T12:00:00Z'));
    expect(await screen.findByText(new RegExp(`^Your free trial would end on ${end}\\.`))).toBeInTheDocument();
  });

  it('tells an account whose trial is spent, instead of offering a button that can only fail', async () => {
    const fetchMock = setup(async () => jsonResponse({}, 201), {
      ...FREE,
      status: 'expired',
      source: 'trial',
      trialAvailable: false,
    });
    expect(await screen.findByText(/The free trial has already been used on this account\./)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'View Pricing Plans' })).toHaveAttribute('href', '/pricing');
    const button = screen.getByRole('button', { name: 'Start Free Trial' });
    expect(button).toBeDisabled();
    fireEvent.click(button);
    expect(fetchMock.mock.calls.some(([, init]) => init?.method === 'POST')).toBe(false);
    expect(screen.queryByText(/would end on/)).toBeNull();
  });
});
