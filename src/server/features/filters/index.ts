/** Public API of the photo editor's filters: its routes and the options tests hand in. */
export { filtersRoutes, type FiltersRouteOptions } from './filters.routes';
export type { FiltersService } from './filters.service';
