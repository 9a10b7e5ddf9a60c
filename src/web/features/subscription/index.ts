// The subscription as every screen sees it: the query, the trial helpers and the upgrade modal that
// the dashboard's ad break, billing and pricing share.
export { subscriptionQueryOptions, useSubscription, useSubscriptionDetails } from './subscription-query';
export { formatTrialDate, trialCheckoutPath } from './trial';
export { UpgradeModal } from './upgrade-modal';
