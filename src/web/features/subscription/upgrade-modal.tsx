import {
  DEFAULT_UPGRADE_MODAL_PLAN,
  TRIAL_LABEL,
  trialEndDate,
  UPGRADE_MODAL_PLANS,
  type UpgradeModalPlanId,
} from '@domain/plans';
import { Check, X } from 'lucide-react';
import { useEffect, useId, useState } from 'react';
import { Link } from 'wouter';
import { toast } from '../../lib/toast';
import { Button } from '../../components/ui/button';
import { Dialog, DialogClose, DialogDescription, DialogTitle } from '../../components/ui/dialog';
import { errorMessage, errorStatus } from '../../lib/api';
import { cn } from '../../lib/cn';
import { useServerNow } from '../../lib/server-clock';
import { useStartTrial } from './use-start-trial';
import { formatTrialDate } from './trial';
import { useSubscriptionDetails } from './subscription-query';

export interface UpgradeModalProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** Why it opened, e.g. `PREMIUM_REQUIRED_MESSAGE`. */
  note?: string;
}

/**
 * The 'Upgrade to Premium' modal: two plans (monthly default), 'Start Free Trial' activates a
 * 7-day premium trial through POST /api/subscription; closes on success, stays open on failure.
 * It says when the trial would end, and once the account's trial is spent it says so instead of
 * offering a button that can only fail.
 */
export function UpgradeModal({ open, onOpenChange, note }: UpgradeModalProps) {
  const [plan, setPlan] = useState<UpgradeModalPlanId>(DEFAULT_UPGRADE_MODAL_PLAN);
  const startTrial = useStartTrial();
  const { subscription } = useSubscriptionDetails(open);
  const trialUsed = subscription?.trialAvailable === false;
  const trialTermsId = useId();
  // The server starts the trial at its own time: a device clock days off named the wrong end.
  const now = useServerNow();
  useEffect(() => {
    if (open) setPlan(DEFAULT_UPGRADE_MODAL_PLAN);
  }, [open]);

  const start = () =>
    startTrial.mutate(plan, {
      onSuccess: () => {
        toast({
          title: 'Subscription activated!',
          description: 'You can now browse photos during ads.',
          variant: 'success',
        });
        onOpenChange(false);
      },
      onError: (err) => {
        // A used trial (409) has a message worth reading; anything else gets the generic text.
        const description =
          errorStatus(err) === 409 ? errorMessage(err, 'Please try again later.') : 'Please try again later.';
        toast({ title: 'Subscription failed', description, variant: 'destructive' });
      },
    });

  return (
    <Dialog open={open} onOpenChange={(next) => !startTrial.isPending && onOpenChange(next)}>
      <div className="flex items-start justify-between gap-2">
        <div>
          <DialogTitle className="text-xl font-bold">Upgrade to Premium</DialogTitle>
          <DialogDescription className="text-sm text-muted">
            Browse your photos instead of watching ads
          </DialogDescription>
        </div>
        <DialogClose asChild>
          <Button variant="ghost" size="icon" aria-label="Close">
            <X className="size-5" aria-hidden />
          </Button>
        </DialogClose>
      </div>
      {note && (
        <p role="note" className="rounded-xl bg-primary-soft px-3 py-2 text-sm font-medium">
          {note}
        </p>
      )}
      <div role="radiogroup" aria-label="Plan" className="flex flex-col gap-3">
        {UPGRADE_MODAL_PLANS.map((p) => {
          const selected = p.id === plan;
          return (
            <button
              key={p.id}
              type="button"
              role="radio"
              aria-checked={selected}
              onClick={() => setPlan(p.id)}
              className={cn(
                'flex min-h-16 items-center justify-between gap-3 rounded-xl border-2 p-3 text-left transition',
                selected ? 'border-primary bg-primary-soft' : 'border-border bg-surface',
              )}
            >
              {/* The name and note give way (the tag wraps below the name) so the price, which
                  cannot break, stays whole inside the card at 320 px. */}
              <span className="flex min-w-0 flex-col">
                <span className="flex flex-wrap items-center gap-x-2 gap-y-1 font-semibold capitalize">
                  {p.id}
                  {p.tag && (
                    <span className="rounded-full bg-primary px-2 py-0.5 text-xs text-primary-fg">{p.tag}</span>
                  )}
                </span>
                <span className="text-sm text-muted">{p.note}</span>
              </span>
              <span className="flex shrink-0 items-center gap-1 font-bold whitespace-nowrap">
                {p.priceLabel}
                {selected && <Check className="size-5 text-primary" aria-hidden />}
              </span>
            </button>
          );
        })}
      </div>
      <p id={trialTermsId} className="rounded-xl bg-surface-2 px-3 py-2 text-sm">
        {trialUsed ? (
          <>
            The free trial has already been used on this account.{' '}
            <Link href="/pricing" onClick={() => onOpenChange(false)} className="font-semibold text-fg underline">
              View Pricing Plans
            </Link>
          </>
        ) : (
          // An estimate from the server's clock as this device knows it: the server fixes the real end when
          // the trial starts.
          // Formatted only while open: the closed modal sits on the dashboard, and the first date
          // formatting of a page load costs tens of milliseconds (locale data).
          open &&
          `Your free trial would end on ${formatTrialDate(trialEndDate(now))}. Nothing is charged: to keep Premium after that, subscribe at checkout.`
        )}
      </p>
      <Button
        size="lg"
        onClick={start}
        disabled={trialUsed}
        pending={startTrial.isPending}
        aria-describedby={trialTermsId}
      >
        {startTrial.isPending ? 'Processing...' : 'Start Free Trial'}
      </Button>
      <DialogClose asChild>
        <button type="button" className="min-h-11 text-sm text-muted underline-offset-2 hover:underline">
          Maybe Later
        </button>
      </DialogClose>
      <p className="text-center text-xs text-muted">{TRIAL_LABEL}</p>
    </Dialog>
  );
}
