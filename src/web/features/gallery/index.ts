export { PhotoImage } from './photo-image';
export { PhotoViewer } from './lazy-dialogs';
export { duplicatesQueryOptions, photoSummaryQueryOptions, photosQueryOptions } from './photos-query';

/** The gallery screen in its own chunk; the router wraps it in `lazy`. */
export const loadGalleryPage = () => import('./gallery-page');
