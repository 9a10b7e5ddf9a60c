import { formatCents } from '@domain/format';
import { formatPricePerCycle, planFor } from '@domain/plans';
import { useQueryClient } from '@tanstack/react-query';
import { Check, Loader2, Receipt, X } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { toast } from '../../lib/toast';
import { Button } from '../../components/ui/button';
import { Card } from '../../components/ui/card';
import { PageHeader } from '../../components/ui/page-header';
import { LoadFailed } from '../../components/ui/refresh-failed';
import { Spinner } from '../../components/ui/spinner';
import { errorMessage } from '../../lib/api';
import { cn } from '../../lib/cn';
import {
  formatTrialDate,
  subscriptionQueryOptions,
  trialCheckoutPath,
  UpgradeModal,
  useSubscriptionDetails,
} from '../subscription';
import { CancelSubscriptionDialog } from './cancel-dialog';
import { invoicesQueryOptions, useInvoices } from './invoices-query';
import { useCancelSubscription } from './use-cancel-subscription';

const formatDate = (iso: string) =>
  new Date(iso).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });

function Row({ label, value }: { label: string; value: string }) {
  return (
    <div className="flex justify-between gap-3 py-1.5 text-sm">
      <dt className="text-muted">{label}</dt>
      <dd className="font-semibold">{value}</dd>
    </div>
  );
}

/** Why a paid plan that Stripe still holds unlocks nothing now, in the words of its state. */
function paymentDueNote(status: string): string {
  switch (status) {
    case 'past_due':
      return "Your plan's renewal payment did not go through, so its features are paused. Your card will be tried again; cancel to stop the charges.";
    case 'paused':
      return 'Your plan is paused: it has no payment method to renew with. Cancel to end it.';
    case 'expired':
      return "Your plan's renewal has not been confirmed yet, so its features are paused until it is. You can also cancel it.";
    default:
      return "Your plan's payments did not go through, so its features are paused. Cancel to end the subscription.";
  }
}

/**
 * Back from a payment, the plan is active only once Stripe's webhook has reached the server
 * (seconds, usually after the browser): the page asks again every ACTIVATION_POLL_MS, for at most
 * ACTIVATION_WAIT_MS, instead of showing the Free plan until the next reload.
 */
export const ACTIVATION_POLL_MS = 2_000;
export const ACTIVATION_WAIT_MS = 60_000;

/**
 * The return address's outcome. Stripe returns there also from a payment that failed on the
 * bank's or wallet's own page, adding `redirect_status`; without one the spec's plain
 * `?success=true` counts as paid.
 */
function paymentReturnOf(search: string): 'succeeded' | 'processing' | 'failed' | null {
  const params = new URLSearchParams(search);
  if (params.get('success') !== 'true') return null;
  const status = params.get('redirect_status');
  if (status === null || status === 'succeeded') return 'succeeded';
  return status === 'processing' ? 'processing' : 'failed';
}

export default function BillingPage() {
  const plan = useSubscriptionDetails();
  const { subscription, isActive, isLoading, trialEndsAt } = plan;
  // A plan that could not be read (refused, or given up on a dead connection) is not the Free plan:
  // it showed 'Free', 'You are on the Free plan.' and no Cancel to a paying subscriber.
  const planUnread = !subscription && plan.isError;
  const invoices = useInvoices();
  // Where focus goes once a Try again is answered: the card that shows the answer.
  const planCard = useRef<HTMLElement>(null);
  const historyTitle = useRef<HTMLHeadingElement>(null);
  const cancel = useCancelSubscription();
  const [confirmOpen, setConfirmOpen] = useState(false);
  const [trialOpen, setTrialOpen] = useState(false);
  const search = useSearch();
  const [, navigate] = useLocation();
  const qc = useQueryClient();

  const [awaitingPlan, setAwaitingPlan] = useState(false);
  // The wait ran out with no plan (a bank debit still processing, a webhook held up): said so,
  // where the page fell back to the Free plan without a word.
  const [planLate, setPlanLate] = useState(false);
  const paidPlanActive = isActive && subscription?.source === 'stripe';

  // Return address after payment: toast once, drop the flags, and reload the state from the server.
  useEffect(() => {
    const outcome = paymentReturnOf(search);
    if (!outcome) return;
    if (outcome === 'failed') {
      toast({
        title: 'Payment Failed',
        description: 'Your payment did not go through, and no plan was started. Please try again.',
        variant: 'destructive',
      });
    } else {
      toast(
        outcome === 'succeeded'
          ? { title: 'Payment Successful', description: 'Your subscription is being activated.', variant: 'success' }
          : { title: 'Payment Processing', description: 'Your subscription starts once your payment is confirmed.' },
      );
      setAwaitingPlan(true);
    }
    void qc.invalidateQueries({ queryKey: subscriptionQueryOptions().queryKey });
    void qc.invalidateQueries({ queryKey: invoicesQueryOptions().queryKey });
    navigate('/billing', { replace: true });
  }, [search, navigate, qc]);

  useEffect(() => {
    if (!awaitingPlan) return;
    if (paidPlanActive) {
      setAwaitingPlan(false);
      setPlanLate(false);
      void qc.invalidateQueries({ queryKey: invoicesQueryOptions().queryKey });
      return;
    }
    const poll = setInterval(
      () => void qc.invalidateQueries({ queryKey: subscriptionQueryOptions().queryKey }),
      ACTIVATION_POLL_MS,
    );
    const giveUp = setTimeout(() => {
      setAwaitingPlan(false);
      setPlanLate(true);
    }, ACTIVATION_WAIT_MS);
    return () => {
      clearInterval(poll);
      clearTimeout(giveUp);
    };
  }, [awaitingPlan, paidPlanActive, qc]);

  const confirmCancel = () =>
    cancel.mutate(undefined, {
      onSuccess: (sub) => {
        setConfirmOpen(false);
        toast({
          title: 'Subscription Updated',
          description:
            sub.status === 'active' && sub.endDate
              ? `Your plan ends on ${formatDate(sub.endDate)}.`
              : 'Your account is now on the Free plan.',
        });
      },
      onError: (err) =>
        toast({
          title: 'Cancel failed',
          description: errorMessage(err, 'Please try again later.'),
          variant: 'destructive',
        }),
    });

  const features = [
    { name: 'Ad overlay gallery', on: isActive },
    { name: 'Unlimited ad skipping', on: isActive },
    { name: 'Photo sync', on: isActive },
    { name: 'Detailed statistics', on: true },
  ];
  const list = invoices.data?.invoices ?? [];

  return (
    <main className="flex flex-col gap-4 p-4 pb-24">
      <PageHeader title="Billing & Subscription" subtitle="Manage your plan and payments" />

      <Card ref={planCard} tabIndex={-1} aria-labelledby="current-plan" className="flex flex-col gap-3">
        <div className="flex items-center justify-between gap-2">
          <h2 id="current-plan" className="text-lg font-bold">
            Current Plan
          </h2>
          <span className="flex items-center gap-2 whitespace-nowrap">
            {trialEndsAt && (
              <span className="rounded-full bg-primary-soft px-2.5 py-0.5 text-xs font-semibold text-fg">
                Free trial
              </span>
            )}
            {!planUnread && (
              <span
                className={cn(
                  'rounded-full px-2.5 py-0.5 text-xs font-semibold',
                  isActive ? 'bg-success text-success-fg' : 'bg-surface-2 text-muted',
                )}
              >
                {isActive ? 'Active' : 'Free'}
              </span>
            )}
          </span>
        </div>
        {planLate && !awaitingPlan && !paidPlanActive && (
          <p role="status" className="rounded-xl bg-surface-2 p-3 text-sm">
            Your payment is still being confirmed. Your new plan will show here once it is: reload this page in a few
            minutes.
          </p>
        )}
        {awaitingPlan && !paidPlanActive && (
          <p role="status" className="flex items-center gap-2 rounded-xl bg-primary-soft p-3 text-sm">
            <Loader2 className="size-4 shrink-0 animate-spin text-primary" aria-hidden />
            Activating your new plan. This takes a few seconds after payment.
          </p>
        )}
        {isLoading ? (
          <Spinner label="Loading subscription" />
        ) : planUnread ? (
          <LoadFailed query={plan} fallback="Could not load your plan." target={planCard} />
        ) : isActive && subscription ? (
          <>
            <dl className="divide-y divide-border">
              <Row label="Plan Type" value={planFor(subscription.tier).name} />
              <Row
                label="Price"
                value={
                  formatPricePerCycle(subscription.price, subscription.billingCycle) +
                  (trialEndsAt ? ' after the trial' : '')
                }
              />
              <Row
                label={subscription.cancelAtPeriodEnd ? 'Ends' : 'Next Billing'}
                value={subscription.endDate ? formatDate(subscription.endDate) : 'N/A'}
              />
            </dl>
            {trialEndsAt && (
              <div className="flex flex-col gap-2 rounded-xl bg-primary-soft p-3 text-sm">
                <p>
                  Your free trial ends on {formatTrialDate(trialEndsAt)}. Nothing is charged and it does not renew: to
                  keep {planFor(subscription.tier).name} after that, subscribe at checkout.
                </p>
                <Link
                  href={trialCheckoutPath(subscription.billingCycle)}
                  className="inline-flex min-h-11 items-center justify-center rounded-xl bg-primary px-4 text-sm font-semibold text-primary-fg"
                >
                  Subscribe to {planFor(subscription.tier).name}
                </Link>
              </div>
            )}
            {subscription.cancelAtPeriodEnd ? (
              <p className="text-sm text-muted">Cancelled: your plan stays active until the date above.</p>
            ) : (
              <Button variant="outline" className="text-danger" onClick={() => setConfirmOpen(true)}>
                Cancel Subscription
              </Button>
            )}
          </>
        ) : subscription?.paymentDue ? (
          <div className="flex flex-col gap-2">
            <p role="status" className="rounded-xl bg-primary-soft p-3 text-sm">
              {paymentDueNote(subscription.status)}
            </p>
            <Button variant="outline" className="text-danger" onClick={() => setConfirmOpen(true)}>
              Cancel Subscription
            </Button>
          </div>
        ) : (
          <div className="flex flex-col gap-2">
            <p className="text-sm text-muted">You are on the Free plan.</p>
            <Link
              href="/pricing"
              className="inline-flex min-h-11 items-center justify-center rounded-xl bg-primary px-4 text-sm font-semibold text-primary-fg"
            >
              View Pricing Plans
            </Link>
            {subscription?.trialAvailable && (
              <Button variant="outline" onClick={() => setTrialOpen(true)}>
                Start Free Trial
              </Button>
            )}
          </div>
        )}
      </Card>

      {/* Which features a plan never read includes is not known: 'Not included' could be untrue. */}
      {!planUnread && (
        <Card aria-labelledby="features-title">
          <h2 id="features-title" className="mb-2 text-lg font-bold">
            Features
          </h2>
          <ul className="flex flex-col gap-2 text-sm">
            {features.map((f) => (
              <li key={f.name} className="flex items-center gap-2">
                {f.on ? (
                  <Check className="size-4 text-success" aria-label="Included" />
                ) : (
                  <X className="size-4 text-muted" aria-label="Not included" />
                )}
                <span className={f.on ? '' : 'text-muted'}>{f.name}</span>
              </li>
            ))}
          </ul>
        </Card>
      )}

      <Card aria-labelledby="history-title">
        <h2 ref={historyTitle} tabIndex={-1} id="history-title" className="mb-2 text-lg font-bold">
          Billing History
        </h2>
        {/* Not 'No billing history available' for a history that could not be read. */}
        {!invoices.data && invoices.isError ? (
          <LoadFailed query={invoices} fallback="Could not load your billing history." target={historyTitle} />
        ) : list.length === 0 ? (
          <div className="flex flex-col items-center gap-1 py-6 text-center">
            <Receipt className="size-8 text-muted" aria-hidden />
            <p className="font-semibold">No billing history available</p>
            <p className="text-sm text-muted">No billing history</p>
          </div>
        ) : (
          <ul className="divide-y divide-border">
            {list.map((inv) => (
              <li key={inv.id} className="flex items-center justify-between gap-3 py-2 text-sm">
                <span className="flex flex-col">
                  <span className="font-semibold">{inv.number ?? 'Invoice'}</span>
                  <span className="text-muted">{formatDate(inv.created)}</span>
                </span>
                <span className="flex items-center gap-3">
                  <span className="capitalize text-muted">{inv.status}</span>
                  <span className="font-semibold">{formatCents(inv.amount)}</span>
                  {inv.hostedInvoiceUrl && (
                    <a href={inv.hostedInvoiceUrl} target="_blank" rel="noreferrer" className="text-primary underline">
                      View
                    </a>
                  )}
                </span>
              </li>
            ))}
          </ul>
        )}
      </Card>

      <CancelSubscriptionDialog
        open={confirmOpen}
        onOpenChange={setConfirmOpen}
        onConfirm={confirmCancel}
        pending={cancel.isPending}
        endsOn={
          subscription?.source === 'stripe' && subscription.endDate && !subscription.paymentDue
            ? formatDate(subscription.endDate)
            : undefined
        }
      />
      <UpgradeModal open={trialOpen} onOpenChange={setTrialOpen} />
    </main>
  );
}
