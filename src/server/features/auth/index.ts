/** Public API of the auth feature: its routes and the mailer tests hand in to capture reset mail. */
export { authRoutes, type AuthRoutesOptions } from './auth.routes';
export type { Mailer } from './mailer';
