/** Public API of the app-status feature: activation, deactivation and the heartbeat. */
export { appStatusRoutes } from './app-status.routes';
