import { TRIAL_TIER, type BillingCycle } from '@domain/plans';

/** 'Mar 17, 2026': trial ends are shown as dates everywhere (billing, pricing, the modal). */
export const formatTrialDate = (date: string | Date) =>
  new Date(date).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });

/** A trial never renews by itself: keeping its plan means buying it here. */
export const trialCheckoutPath = (cycle: BillingCycle) => `/checkout?tier=${TRIAL_TIER}&billing=${cycle}`;
