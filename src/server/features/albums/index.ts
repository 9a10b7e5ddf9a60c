/** Public API of the albums feature: its routes, and the repository that rebuilds smart albums after analysis. */
export { albumsRoutes } from './albums.routes';
export { createAlbumsRepository, syncSmartAlbumsIn, type AlbumsRepository } from './albums.repository';
export { SMART_ALBUM_REPAIR } from './albums.service';
