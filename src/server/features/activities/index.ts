/** Public API of the activities feature: ad breaks and the activities they record. */
export { activitiesRoutes, type ActivitiesRouteOptions } from './activities.routes';
