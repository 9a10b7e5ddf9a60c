/**
 * Public API of the subscriptions feature: its routes, the reader other features gate with, and the
 * subscription state the payments feature writes from verified Stripe events.
 */
export { subscriptionsRoutes, type SubscriptionsRouteOptions } from './subscriptions.routes';
export { createSubscriptionReader, type SubscriptionReader } from './subscription-reader';
export {
  createSubscriptionsRepository,
  type EventTx,
  type SubscriptionRow,
  type SubscriptionsRepository,
} from './subscriptions.repository';
