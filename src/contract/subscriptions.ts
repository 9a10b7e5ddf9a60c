import { z } from 'zod';
import { BILLING_CYCLES, TIERS } from '@domain/plans';

/**
 * Subscription, upgrade, checkout and billing shapes, shared by the server routes and the client
 * screens. Prices are integer cents; the server decides them from
 * the catalogue in src/domain/plans.ts, a client-sent price is only checked against it.
 */
export const tier = z.enum(TIERS);

export const billingCycle = z.enum(BILLING_CYCLES);

export { FREE_SUBSCRIPTION, PREMIUM_REQUIRED_MESSAGE } from './subscriptions-values';

/**
 * 'active' is the only status that unlocks paid features, and only while endDate is in the future
 * (an expired row reads as 'expired'). 'inactive' is the free default of a user with no row.
 */
export const SUBSCRIPTION_STATUSES = [
  'active',
  'inactive',
  'expired',
  'past_due',
  'canceled',
  'incomplete',
  'paused',
] as const;
export const subscriptionStatus = z.enum(SUBSCRIPTION_STATUSES);

export const subscription = z.object({
  status: subscriptionStatus,
  tier,
  billingCycle,
  /** cents */
  price: z.number().int(),
  /** ISO date-time, or null when there is no end (free). */
  endDate: z.string().nullable(),
  /** Where the state came from: none (free), trial (upgrade modal), stripe (paid checkout). */
  source: z.enum(['none', 'trial', 'upgrade', 'stripe']),
  /** A Stripe subscription that stays active until endDate and then ends. */
  cancelAtPeriodEnd: z.boolean(),
  /** The upgrade modal's free trial is offered once per account. */
  trialAvailable: z.boolean(),
  /**
   * A free trial is running: nothing is charged, and it ends at trialEndsAt without renewing. The
   * tier, billingCycle and price are what checkout charges to keep the plan after it.
   */
  trial: z.boolean(),
  /** ISO date-time the running trial ends, or null when no trial is running. */
  trialEndsAt: z.string().nullable(),
  /**
   * A paid subscription unlocks nothing but Stripe still charges it (a failed renewal it retries,
   * a paused one): it can be cancelled, and a new plan waits until it is.
   */
  paymentDue: z.boolean(),
});
export const subscriptionResponse = subscription;

/** The upgrade modal's older payload: plan is the billing cycle; the tier is premium. */
export const legacySubscriptionBody = z.object({
  plan: billingCycle,
  status: z.literal('active').optional(),
  /** Ignored: the server computes the trial's end. */
  endDate: z.string().max(64).optional(),
  /** Checked against the modal's price for the plan; a different price is refused. */
  price: z.number().int().nonnegative().optional(),
});

export const upgradeBody = z.object({
  tier,
  billingCycle,
  price: z.number().int().nonnegative(),
});
export const upgradeResponse = z.object({
  /** Paid plans are bought through checkout; the server answers where to go. */
  checkoutUrl: z.string(),
  tier,
  billingCycle,
  price: z.number().int(),
});

export const createSubscriptionBody = z.object({ tier, billingCycle });
export const createSubscriptionResponse = z.object({
  clientSecret: z.string(),
  /** cents */
  amount: z.number().int(),
  subscriptionId: z.string(),
});

export const invoice = z.object({
  id: z.string(),
  number: z.string().nullable(),
  /** cents */
  amount: z.number().int(),
  currency: z.string(),
  status: z.string().nullable(),
  /** ISO date-time */
  created: z.string(),
  hostedInvoiceUrl: z.string().nullable(),
});
export const invoicesResponse = z.object({ invoices: z.array(invoice) });

export const publicConfigResponse = z.object({
  /** Null when payments are not configured: checkout shows 'Payment System Unavailable'. */
  stripePublicKey: z.string().nullable(),
});

export const webhookResponse = z.object({ received: z.literal(true), duplicate: z.boolean().optional() });

export type Subscription = z.infer<typeof subscription>;

export type SubscriptionStatus = z.infer<typeof subscriptionStatus>;
export type LegacySubscriptionBody = z.infer<typeof legacySubscriptionBody>;
export type UpgradeBody = z.infer<typeof upgradeBody>;
export type UpgradeResponse = z.infer<typeof upgradeResponse>;
export type CreateSubscriptionBody = z.infer<typeof createSubscriptionBody>;
export type CreateSubscriptionResponse = z.infer<typeof createSubscriptionResponse>;
export type Invoice = z.infer<typeof invoice>;
export type PublicConfig = z.infer<typeof publicConfigResponse>;
