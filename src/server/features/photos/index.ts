/** Public API of the photos feature: its routes, and what the photo editor (filters) builds on. */
export { photosRoutes } from './photos.routes';
export {
  createPhotosRepository,
  listedColumns,
  lockOwner,
  usedBytes,
  type LibraryState,
  type ListedPhotoRow,
  type PhotoRow,
  type PhotosRepository,
} from './photos.repository';
export { type FirstPages } from './first-pages';
export {
  createStorageCheck,
  removeOrLeaveToSweep,
  toPhoto,
  type PhotosService,
  type StorageCheck,
} from './photos.service';
export { EDITOR_DEMO_KEY } from './demo-library';
export { decodeRefusal, DEFAULT_MAX_PIXELS, PREVIEW_SIZE, THUMBNAIL_SIZE } from './image-pipeline';
