/** Public API of the health feature: `/healthz` and `/readyz`. */
export { healthRoutes } from './health.routes';
