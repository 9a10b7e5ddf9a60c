/** Public API of the photos feature: its routes, and what the photo editor (filters) builds on. */
export { photosRoutes } from './photos.routes.js';
export { createPhotosRepository, type PhotoRow, type PhotosRepository } from './photos.repository.js';
export { createStorageCheck, toPhoto, type PhotosService, type StorageCheck } from './photos.service.js';
export { EDITOR_DEMO_KEY } from './demo-library.js';
export { DEFAULT_MAX_PIXELS, PREVIEW_SIZE, THUMBNAIL_SIZE } from './image-pipeline.js';
