import { formatPricePerCycle, isBillingCycle, isTier, planFor, priceFor } from '@domain/plans';
import { Elements } from '@stripe/react-stripe-js';
import { loadStripe, type Stripe } from '@stripe/stripe-js';
import { ArrowLeft, CreditCard } from 'lucide-react';
import { useEffect, useMemo } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { Card } from '../../components/ui/card';
import { CenteredSpinner } from '../../components/ui/spinner';
import { errorCode, errorMessage, errorStatus } from '../../lib/api';
import { toast } from '../../lib/toast';
import { CheckoutForm } from './checkout-form';
import { usePublicConfig } from './config-query';
import { useCreateSubscription } from './use-create-subscription';

const stripeByKey = new Map<string, Promise<Stripe | null>>();
const stripeFor = (key: string) => {
  if (!stripeByKey.has(key)) stripeByKey.set(key, loadStripe(key));
  return stripeByKey.get(key)!;
};

function BackToPricing() {
  return (
    <Link
      href="/pricing"
      className="inline-flex min-h-11 items-center gap-2 self-start rounded-xl px-2 text-sm font-semibold text-muted hover:text-fg"
    >
      <ArrowLeft className="size-4" aria-hidden /> Back to Pricing
    </Link>
  );
}

function Unavailable() {
  return (
    <main className="flex flex-col gap-4 p-4">
      <BackToPricing />
      <Card className="flex flex-col items-center gap-3 py-10 text-center">
        <CreditCard className="size-10 text-muted" aria-hidden />
        <h1 className="text-xl font-bold">Payment System Unavailable</h1>
        <p className="text-sm text-muted">Payments are not set up right now. Please try again later.</p>
      </Card>
    </main>
  );
}

export default function CheckoutPage() {
  const search = useSearch();
  const [, navigate] = useLocation();
  const params = useMemo(() => new URLSearchParams(search), [search]);
  const tier = params.get('tier');
  const billing = params.get('billing');
  const valid = isTier(tier) && tier !== 'free' && isBillingCycle(billing);

  const config = usePublicConfig();
  const publicKey = config.data?.stripePublicKey ?? null;
  const created = useCreateSubscription(
    valid ? tier : 'premium',
    valid && isBillingCycle(billing) ? billing : 'monthly',
    valid && !!publicKey,
  );
  const notConfigured = config.isSuccess && !publicKey;
  // A 503 `busy` (another checkout of the account held its turn) is a moment's wait, said and
  // sent back to choose again like any failure, not the screen of payments not set up.
  const creationUnavailable = errorStatus(created.error) === 503 && errorCode(created.error) !== 'busy';

  useEffect(() => {
    // Missing params, or a failed subscription creation, go back to /pricing to choose again.
    if (!valid || (created.isError && !creationUnavailable)) navigate('/pricing', { replace: true });
  }, [valid, created.isError, creationUnavailable, navigate]);
  useEffect(() => {
    // A refusal says why (a plan already running, one whose payment is still on its way, as after
    // the browser's Back from a payment): without it the user was only put back on the pricing
    // screen, to choose a plan that would be refused again. So does a fault (the payment provider's
    // error, a server restarting behind its proxy, a lost connection), which sent the user back
    // without a word, as if the press had done nothing. A 503 (but `busy`) stays on the
    // unavailable screen.
    if (!created.error || creationUnavailable) return;
    const status = errorStatus(created.error);
    toast({
      title: 'Checkout Failed',
      description: errorMessage(
        created.error,
        status !== undefined && status < 500
          ? 'Please choose a plan again.'
          : 'Checkout could not be prepared. Please try again.',
      ),
      variant: 'destructive',
    });
  }, [created.error, creationUnavailable]);

  if (!valid) return null;
  if (notConfigured || creationUnavailable || config.isError) return <Unavailable />;
  if (!created.data || !publicKey) return <CenteredSpinner label="Preparing checkout" />;

  const plan = planFor(tier);
  const { clientSecret, amount } = created.data;
  // The plan's line is its catalogue price per cycle; the button is what Stripe will charge now,
  // which a credit balance on the customer (a refund left as credit) can make lower.
  const cycle = billing as 'monthly' | 'yearly';
  return (
    <main className="flex flex-col gap-4 p-4 pb-24">
      <BackToPricing />
      <Card className="flex flex-col gap-4">
        <div>
          <h1 className="text-2xl font-bold">Complete Your Purchase</h1>
          <p className="text-sm text-muted">
            {`${plan.name} plan - ${formatPricePerCycle(priceFor(plan.id, cycle), cycle)}`}
          </p>
        </div>
        <Elements stripe={stripeFor(publicKey)} options={{ clientSecret }}>
          <CheckoutForm amount={amount} />
        </Elements>
      </Card>
    </main>
  );
}
