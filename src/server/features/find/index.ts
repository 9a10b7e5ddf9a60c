/** Public API of the find feature: timeline by date taken, search, similar photos and duplicates. */
export { findRoutes, type FindRoutesOptions } from './find.routes';
export { DUPLICATE_THRESHOLD } from './find.service';
