import {
  formatPricePerCycle,
  FREE_PHOTO_LIMIT_LABEL,
  MOST_POPULAR_TAG,
  PLANS,
  PRICING_SUBTITLE,
  PRICING_TITLE,
  priceFor,
  yearlySavingsLabel,
  YEARLY_SAVINGS_BADGE,
  type BillingCycle,
  type Plan,
} from '@domain/plans';
import { Check } from 'lucide-react';
import { useState } from 'react';
import { useLocation } from 'wouter';
import { toast } from '../../lib/toast';
import { Button } from '../../components/ui/button';
import { Card } from '../../components/ui/card';
import { PageHeader } from '../../components/ui/page-header';
import { errorMessage } from '../../lib/api';
import { cn } from '../../lib/cn';
import { useAuth } from '../auth';
import { formatTrialDate, useSubscriptionDetails } from '../subscription';
import { useUpgrade } from './use-upgrade';

const FAQ = [
  {
    q: 'Can I cancel anytime?',
    a: 'Yes. Cancel from the Billing page; a paid plan stays active until the end of the period you paid for.',
  },
  {
    q: 'What does the free plan include?',
    a: `${FREE_PHOTO_LIMIT_LABEL}, mini-games during ad breaks, points and achievements, and basic statistics.`,
  },
  {
    q: 'How does yearly billing save money?',
    a: 'Yearly plans cost about 20% less than paying monthly for twelve months.',
  },
  {
    q: 'How do I pay?',
    a: 'By card, through our payment provider. Eyevu never sees or stores your card number.',
  },
];

const accent: Record<Plan['color'], string> = {
  gray: 'text-muted',
  blue: 'text-primary',
  purple: 'text-primary',
  amber: 'text-warning',
};

export default function PricingPage() {
  const [cycle, setCycle] = useState<BillingCycle>('monthly');
  const { isAuthenticated } = useAuth();
  const { tier: currentTier, trialEndsAt } = useSubscriptionDetails(isAuthenticated);
  const upgrade = useUpgrade();
  const [pendingTier, setPendingTier] = useState<string | null>(null);
  const [, navigate] = useLocation();

  const choose = (plan: Plan) => {
    if (!isAuthenticated) {
      navigate('/login');
      return;
    }
    setPendingTier(plan.id);
    upgrade.mutate(
      { tier: plan.id, billingCycle: cycle, price: priceFor(plan.id, cycle) },
      {
        onSuccess: (res) => navigate(res.checkoutUrl),
        onError: (err) =>
          toast({
            title: 'Upgrade Failed',
            description: errorMessage(err, 'Failed to upgrade subscription'),
            variant: 'destructive',
          }),
        onSettled: () => setPendingTier(null),
      },
    );
  };

  return (
    <main className="flex flex-col gap-5 p-4 pb-24">
      <PageHeader title={PRICING_TITLE} subtitle={PRICING_SUBTITLE} />

      <div className="flex items-center justify-center gap-3">
        <div role="group" aria-label="Billing cycle" className="inline-flex rounded-xl bg-surface-2 p-1">
          {(['monthly', 'yearly'] as const).map((c) => (
            <button
              key={c}
              type="button"
              aria-pressed={cycle === c}
              onClick={() => setCycle(c)}
              className={cn(
                'min-h-11 rounded-lg px-4 text-sm font-semibold capitalize transition',
                cycle === c ? 'bg-surface text-fg shadow-sm' : 'text-muted',
              )}
            >
              {c}
            </button>
          ))}
        </div>
        {cycle === 'yearly' && (
          <span className="rounded-full bg-success px-2.5 py-1 text-xs font-semibold text-success-fg">
            {YEARLY_SAVINGS_BADGE}
          </span>
        )}
      </div>

      <div className="flex flex-col gap-4">
        {PLANS.map((plan) => {
          const price = priceFor(plan.id, cycle);
          const savings = cycle === 'yearly' ? yearlySavingsLabel(plan) : null;
          const onTrial = plan.id === currentTier && isAuthenticated && !!trialEndsAt;
          // A trial's plan is still for sale: buying it at checkout is how it continues.
          const isCurrent = plan.id === currentTier && isAuthenticated && !onTrial;
          const isPending = pendingTier === plan.id;
          return (
            <Card
              key={plan.id}
              aria-labelledby={`plan-${plan.id}`}
              className={cn('relative flex flex-col gap-3', plan.popular && 'border-2 border-primary')}
            >
              {plan.popular && (
                <span className="absolute -top-3 right-4 rounded-full bg-primary px-3 py-0.5 text-xs font-semibold text-primary-fg">
                  {MOST_POPULAR_TAG}
                </span>
              )}
              {/* Name and price share a row: a compact card keeps the first upgrade button clear of
                  the sticky bottom navigation on a phone-sized first screen (touch-target audit). */}
              <div>
                <div className="flex flex-wrap items-baseline justify-between gap-x-3">
                  <h2 id={`plan-${plan.id}`} className={cn('text-lg font-bold', accent[plan.color])}>
                    {plan.name}
                  </h2>
                  <p className="text-2xl font-bold">{formatPricePerCycle(price, cycle)}</p>
                </div>
                <p className="text-sm text-muted">{plan.description}</p>
              </div>
              {savings && <p className="text-sm font-semibold text-success">{savings}</p>}
              {onTrial && trialEndsAt && (
                <p className="rounded-lg bg-primary-soft px-3 py-1.5 text-sm font-semibold">
                  Free trial ends {formatTrialDate(trialEndsAt)}. Subscribe to keep {plan.name} after that.
                </p>
              )}
              <ul className="flex flex-col gap-1.5 text-sm">
                {plan.features.map((f) => (
                  <li key={f} className="flex items-center gap-2">
                    <Check className="size-4 shrink-0 text-success" aria-hidden />
                    {f}
                  </li>
                ))}
              </ul>
              <Button
                variant={plan.popular ? 'primary' : 'outline'}
                disabled={isCurrent || plan.id === 'free'}
                pending={upgrade.isPending}
                onClick={() => choose(plan)}
              >
                {isCurrent
                  ? 'Current Plan'
                  : plan.id === 'free'
                    ? 'Free'
                    : isPending
                      ? 'Processing...'
                      : `Upgrade to ${plan.name}`}
              </Button>
            </Card>
          );
        })}
      </div>

      <section aria-labelledby="faq-title" className="flex flex-col gap-2">
        <h2 id="faq-title" className="text-lg font-bold">
          Frequently Asked Questions
        </h2>
        {FAQ.map((item) => (
          <details key={item.q} className="rounded-xl border border-border bg-surface p-3">
            <summary className="min-h-8 cursor-pointer font-semibold">{item.q}</summary>
            <p className="mt-2 text-sm text-muted">{item.a}</p>
          </details>
        ))}
      </section>
    </main>
  );
}
