/**
 * Plan catalogue, prices (integer cents) and subscription status rules.
 * The server charges from these prices; the client only displays them.
 */
import { DAY_MS, toDate, type DateInput } from './calendar';
import { formatCents } from './format';

export const TIERS = ['free', 'basic', 'premium', 'ultimate'] as const;
export type Tier = (typeof TIERS)[number];

export const BILLING_CYCLES = ['monthly', 'yearly'] as const;
export type BillingCycle = (typeof BILLING_CYCLES)[number];

/** Type guards for untrusted input such as the /checkout query string. */
export function isTier(value: unknown): value is Tier {
  return typeof value === 'string' && (TIERS as readonly string[]).includes(value);
}

export function isBillingCycle(value: unknown): value is BillingCycle {
  return typeof value === 'string' && (BILLING_CYCLES as readonly string[]).includes(value);
}

/** Theme-neutral colour names; the UI maps them to its palette. */
export type PlanColor = 'gray' | 'blue' | 'purple' | 'amber';

export interface Plan {
  id: Tier;
  name: string;
  description: string;
  features: readonly string[];
  /** cents */
  monthlyPrice: number;
  /** cents */
  yearlyPrice: number;
  popular: boolean;
  color: PlanColor;
}

/** The free plan is limited to this many photos; paid plans are unlimited. */
export const FREE_PHOTO_LIMIT = 50;
/** How the free plan's limit reads in the plan list and the pricing FAQ. */
export const FREE_PHOTO_LIMIT_LABEL = `Up to ${FREE_PHOTO_LIMIT} photos`;

const GIB = 1024 ** 3;
/**
 * Storage per plan: bytes of the user's originals (the demo library excluded) plus their filter
 * versions. Paid plans have unlimited photos but not unlimited disk: about 10,000 phone photos
 * on Basic, 40,000 on Premium.
 */
export const STORAGE_QUOTA_BYTES: Readonly<Record<Tier, number>> = {
  free: 1 * GIB,
  basic: 50 * GIB,
  premium: 200 * GIB,
  ultimate: 1024 * GIB,
};

/** '1 GB', '1.5 GB', '750 MB' (binary units, as the quota is defined). */
export function formatStorage(bytes: number): string {
  const safe = Number.isFinite(bytes) && bytes > 0 ? bytes : 0;
  if (safe >= GIB) return `${Number((safe / GIB).toFixed(1))} GB`;
  return `${Math.ceil(safe / 1024 ** 2)} MB`;
}

export const PLANS: readonly Plan[] = [
  {
    id: 'free',
    name: 'Free',
    description: 'Get started with ad breaks and mini-games',
    features: [FREE_PHOTO_LIMIT_LABEL, 'Mini-games during ads', 'Points and achievements', 'Basic statistics'],
    monthlyPrice: 0,
    yearlyPrice: 0,
    popular: false,
    color: 'gray',
  },
  {
    id: 'basic',
    name: 'Basic',
    description: 'Browse your photos instead of watching ads',
    features: ['Unlimited photos', 'Ad overlay gallery', 'Unlimited ad skipping', 'Photo sync'],
    monthlyPrice: 499,
    yearlyPrice: 4790,
    popular: false,
    color: 'blue',
  },
  {
    id: 'premium',
    name: 'Premium',
    description: 'Smart organization for your whole library',
    features: [
      'Everything in Basic',
      'AI photo organization',
      'Smart albums',
      'AI photo filters',
      'Detailed statistics',
    ],
    monthlyPrice: 999,
    yearlyPrice: 9590,
    popular: true,
    color: 'purple',
  },
  {
    id: 'ultimate',
    name: 'Ultimate',
    description: 'Every feature, first',
    features: ['Everything in Premium', 'Custom themes', 'Early access to new features', 'Priority support'],
    monthlyPrice: 1999,
    yearlyPrice: 19190,
    popular: false,
    color: 'amber',
  },
];

export const MOST_POPULAR_TAG = 'Most Popular';

/** The pricing screen's heading: the client renders it, and the server paints it before any script. */
export const PRICING_TITLE = 'Choose Your Plan';
export const PRICING_SUBTITLE = 'Browse your photos instead of watching ads';
/** Badge next to the billing toggle when yearly is selected. */
export const YEARLY_SAVINGS_BADGE = 'Save 20%';

export function planFor(tier: Tier): Plan {
  const plan = PLANS.find((p) => p.id === tier);
  // Unreachable for a typed Tier; guards callers that cast unchecked strings.
  if (!plan) throw new RangeError(`Unknown tier: ${String(tier)}`);
  return plan;
}

/** Price in cents for a tier and billing cycle. */
export function priceFor(tier: Tier, cycle: BillingCycle): number {
  const plan = planFor(tier);
  return cycle === 'yearly' ? plan.yearlyPrice : plan.monthlyPrice;
}

/** 12 x monthly - yearly, in cents (basic 1198, premium 2398, ultimate 4798, free 0). */
export function yearlySavingsCents(plan: Pick<Plan, 'monthlyPrice' | 'yearlyPrice'>): number {
  return 12 * plan.monthlyPrice - plan.yearlyPrice;
}

/** 'Save $23.98 annually' ('$X' drops '.00' when whole), or null when there is nothing saved (free). */
export function yearlySavingsLabel(plan: Pick<Plan, 'monthlyPrice' | 'yearlyPrice'>): string | null {
  const cents = yearlySavingsCents(plan);
  return cents > 0 ? `Save ${formatCents(cents, { trimWholeDollars: true })} annually` : null;
}

/** '$4.99/month' or '$47.90/year'. */
export function formatPricePerCycle(cents: number, cycle: BillingCycle): string {
  return `${formatCents(cents)}/${cycle === 'yearly' ? 'year' : 'month'}`;
}

// ---------------------------------------------------------------- upgrade modal

/** The modal's plans predate tiers: the legacy payload sends `plan: 'monthly' | 'yearly'`. */
export type UpgradeModalPlanId = BillingCycle;

export interface UpgradeModalPlan {
  id: UpgradeModalPlanId;
  /** cents, as the modal shows it; the client's POST is checked against it */
  price: number;
  /** '$4.99/month' */
  priceLabel: string;
  note: string;
  tag: string | null;
}

export const UPGRADE_MODAL_PLANS: readonly UpgradeModalPlan[] = [
  {
    id: 'monthly',
    price: 499,
    priceLabel: '$4.99/month',
    note: 'Unlimited ad skipping',
    tag: 'Popular',
  },
  { id: 'yearly', price: 4999, priceLabel: '$49.99/year', note: 'Save 17% annually', tag: null },
];

export const DEFAULT_UPGRADE_MODAL_PLAN: UpgradeModalPlanId = 'monthly';
export const TRIAL_DAYS = 7;
export const TRIAL_LABEL = '7-day free trial • Cancel anytime';

export function upgradeModalPlan(id: UpgradeModalPlanId): UpgradeModalPlan {
  const plan = UPGRADE_MODAL_PLANS.find((p) => p.id === id);
  if (!plan) throw new RangeError(`Unknown upgrade plan: ${String(id)}`);
  return plan;
}

/**
 * The modal's 'Start Free Trial' gives this tier for TRIAL_DAYS, once per account. Nothing renews
 * it: to keep the tier the user buys it at checkout, at the catalogue's price for the chosen cycle.
 */
export const TRIAL_TIER = 'premium' satisfies Tier;

/** When a trial started at `now` ends. */
export function trialEndDate(now: Date): Date {
  return new Date(now.getTime() + TRIAL_DAYS * DAY_MS);
}

/** What the trial's plan costs once bought at checkout (cents per cycle). */
export function priceAfterTrial(cycle: BillingCycle): number {
  return priceFor(TRIAL_TIER, cycle);
}

// ---------------------------------------------------------------- status

export interface SubscriptionStatusInput {
  status: string;
  /** ISO string or Date; null/undefined means open-ended (no expiry recorded). */
  endDate?: DateInput | null;
}

/** Stripe statuses of a subscription it keeps and retries charging for, while it unlocks nothing here. */
const STILL_CHARGED = new Set(['past_due', 'unpaid', 'paused']);

/**
 * A paid (Stripe) subscription that unlocks nothing but that Stripe still holds and will charge:
 * a failed renewal it retries (past_due, unpaid), a paused one, or an 'active' one past its end
 * whose renewal has not been confirmed yet (not one cancelled at its period's end). Cancelling
 * such a one stops the charges at once, and a new checkout waits until it is settled: two
 * subscriptions would bill one customer.
 */
/** A new plan while Stripe still bills an earlier subscription (see `isPaymentDue`). */
export const PAYMENT_DUE_MESSAGE =
  'Your current subscription is still being billed. Cancel it on the billing page before choosing a new plan.';

export function isPaymentDue(
  sub: (SubscriptionStatusInput & { source: string; cancelAtPeriodEnd: boolean }) | null | undefined,
  now: Date,
): boolean {
  if (!sub || sub.source !== 'stripe' || isSubscriptionActive(sub, now)) return false;
  return STILL_CHARGED.has(sub.status) || (sub.status === 'active' && !sub.cancelAtPeriodEnd);
}

/**
 * Active means status 'active' and the end date has not passed (an end date
 * exactly equal to `now` counts as passed). An unparseable end date is not
 * active: failing closed keeps paid features behind a valid subscription.
 */
export function isSubscriptionActive(sub: SubscriptionStatusInput | null | undefined, now: Date): boolean {
  if (!sub || sub.status !== 'active') return false;
  if (sub.endDate === null || sub.endDate === undefined) return true;
  const end = toDate(sub.endDate).getTime();
  return !Number.isNaN(end) && end > now.getTime();
}
