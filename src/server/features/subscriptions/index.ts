/**
 * Public API of the subscriptions feature: its routes, the reader other features gate with, and the
 * subscription state the payments feature writes from verified Stripe events.
 */
export { subscriptionsRoutes, type SubscriptionsRouteOptions } from './subscriptions.routes.js';
export { createSubscriptionReader, type SubscriptionReader } from './subscription-reader.js';
export {
  createSubscriptionsRepository,
  type EventTx,
  type SubscriptionRow,
  type SubscriptionsRepository,
} from './subscriptions.repository.js';
