// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, render, screen, waitFor } from '@testing-library/react';
import { Toaster } from '../../components/ui/toaster';
import { getQueryFn } from '../../lib/api';
import { dismissAllToasts } from '../../lib/toast';
import CheckoutPage from './checkout-page';

// Stripe's own script is not fetched in these tests: the form's provider waits for ever.
vi.mock('@stripe/stripe-js', () => ({ loadStripe: () => new Promise(() => {}) }));

const STILL_ON_ITS_WAY =
  'Your account still has a subscription with our payment provider that is not shown here yet. Please try again in a few minutes.';

const CHECKOUT_BUSY = 'A checkout is already being opened for your account. Please try again in a moment.';

function jsonResponse(body: unknown, status = 200) {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

function renderCheckout(url: string, creation: () => Response) {
  window.history.replaceState(null, '', url);
  const fetchMock = vi.fn(async (path: string) => {
    if (path === '/api/config') return jsonResponse({ stripePublicKey: 'pk_test_eyevu' });
    if (path === '/api/create-subscription') return creation();
    return jsonResponse({}, 404);
  });
  vi.stubGlobal('fetch', fetchMock);
  const qc = new QueryClient({
    defaultOptions: { queries: { queryFn: getQueryFn({ on401: 'throw' }), retry: false, staleTime: Infinity } },
  });
  render(
    <QueryClientProvider client={qc}>
      <CheckoutPage />
      <Toaster />
    </QueryClientProvider>,
  );
  return fetchMock;
}

afterEach(() => {
  act(() => dismissAllToasts());
  vi.unstubAllGlobals();
  window.history.replaceState(null, '', '/');
});

describe('CheckoutPage', () => {
  it('a refused checkout (as after Back from a payment whose plan is on its way) goes to pricing and says why', async () => {
    renderCheckout('/checkout?tier=premium&billing=monthly', () =>
      jsonResponse({ message: STILL_ON_ITS_WAY, code: 'conflict' }, 409),
    );
    await waitFor(() => expect(window.location.pathname).toBe('/pricing'));
    expect(await screen.findByText('Checkout Failed')).toBeInTheDocument();
    expect(screen.getByText(STILL_ON_ITS_WAY)).toBeInTheDocument();
  });

  it.each([
    [
      'the payment provider failing (502)',
      () => jsonResponse({ message: 'Payment provider error' }, 502),
      'Payment provider error',
    ],
    [
      "a proxy's error page while the server restarts",
      () => new Response('<html><body><h1>502 Bad Gateway</h1></body></html>', { status: 502 }),
      'Checkout could not be prepared. Please try again.',
    ],
    [
      'another checkout of the account holding its turn (503 busy, with Retry-After)',
      () =>
        new Response(JSON.stringify({ message: CHECKOUT_BUSY, code: 'busy' }), {
          status: 503,
          headers: { 'Content-Type': 'application/json', 'Retry-After': '5' },
        }),
      CHECKOUT_BUSY,
    ],
    [
      'a lost connection',
      (): Response => {
        throw new TypeError('Failed to fetch');
      },
      'Network error. Please try again.',
    ],
  ])(
    'a checkout that could not be prepared (%s) goes to pricing and says so, never without a word',
    async (_, creation, said) => {
      renderCheckout('/checkout?tier=premium&billing=monthly', creation);
      await waitFor(() => expect(window.location.pathname).toBe('/pricing'));
      expect(await screen.findByText('Checkout Failed')).toBeInTheDocument();
      expect(screen.getByText(said)).toBeInTheDocument();
    },
  );

  it('payments not set up (503) shows the unavailable screen, not a toast', async () => {
    renderCheckout('/checkout?tier=premium&billing=monthly', () =>
      jsonResponse({ message: 'Payments are not configured.', code: 'unavailable' }, 503),
    );
    expect(await screen.findByText('Payment System Unavailable')).toBeInTheDocument();
    expect(window.location.pathname).toBe('/checkout');
    expect(screen.queryByText('Checkout Failed')).toBeNull();
  });

  it('without its parameters goes to pricing without asking the server', async () => {
    const fetchMock = renderCheckout('/checkout?tier=premium', () => jsonResponse({}, 500));
    await waitFor(() => expect(window.location.pathname).toBe('/pricing'));
    expect(fetchMock).not.toHaveBeenCalledWith('/api/create-subscription', expect.anything());
    expect(screen.queryByText('Checkout Failed')).toBeNull();
  });

  it('shows the plan at its catalogue price and the first charge as Stripe computed it (a credit balance lowers only the charge)', async () => {
    renderCheckout('/checkout?tier=premium&billing=monthly', () =>
      jsonResponse({ subscriptionId: 'sub_1', clientSecret: 'pi_1_secret_x', amount: 199 }),
    );
    expect(await screen.findByText('Premium plan - $9.99/month')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Pay $1.99' })).toBeInTheDocument();
  });
});
