/** Public API of the payments feature: its routes (checkout, invoices, the Stripe webhook) and the Stripe gateway. */
export { paymentsRoutes, type PaymentsRouteOptions } from './payments.routes';
export { createStripeGateway, type StripeGateway } from './stripe-gateway';
