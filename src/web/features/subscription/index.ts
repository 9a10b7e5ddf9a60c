import { lazyWhenOpen } from '../../lib/lazy-when-open';
// The subscription as every screen sees it: the query, the trial helpers and the upgrade modal that
// the dashboard's ad break, billing and pricing share.
export { subscriptionQueryOptions, useSubscription, useSubscriptionDetails } from './subscription-query';
export { formatTrialDate, trialCheckoutPath } from './trial';

/** Loaded at its first opening: closed, it was Radix Dialog's way into the first load of `/` and `/pricing`. */
export const UpgradeModal = lazyWhenOpen(() => import('./upgrade-modal').then((m) => m.UpgradeModal));
