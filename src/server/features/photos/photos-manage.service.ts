import type { DeleteHook } from '../../context';
import type { DownloadVersion, PhotoInfo } from '@contract/photos-manage';
import type { PhotoPage } from '@contract/photos';
import { appliedDimensions } from '@domain/filters';
import { badRequest, notFound } from '../../http/errors';
import type { BlobStore } from '../../storage/blob-store';
import { downloadFileName } from './download-name';
import type { PhotosManageRepository } from './photos-manage.repository';
import type { PhotosRepository } from './photos.repository';
import { keysetPage, removeOrLeaveToSweep } from './photos.service';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NOT_FOUND = 'Photo not found.';

const photoWord = (n: number) => (n === 1 ? '1 photo' : `${n} photos`);

const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : null);
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** 'Canon' + 'Canon EOS R6' -> 'Canon EOS R6'; 'Apple' + 'iPhone 15' -> 'Apple iPhone 15'. */
export function cameraName(make: unknown, model: unknown): string | null {
  const mk = text(make);
  const md = text(model);
  if (mk && md) return md.toLowerCase().startsWith(mk.toLowerCase().split(/\s+/)[0]!) ? md : `${mk} ${md}`;
  return md ?? mk;
}

/** The EXIF place, when both coordinates are real ones. */
export function placeFrom(exif: Record<string, unknown> | null): PhotoInfo['place'] {
  const latitude = num(exif?.latitude);
  const longitude = num(exif?.longitude);
  if (latitude === null || longitude === null) return null;
  if (Math.abs(latitude) > 90 || Math.abs(longitude) > 180) return null;
  return { latitude, longitude };
}

/**
 * Managing photos: many deleted at once (all or nothing), favourites and their album, the Info
 * panel's details and downloads under the photo's own name. Everything is the owner's only: a
 * photo of another user answers the same 404 as one that does not exist.
 */
export function createPhotosManageService(deps: {
  repo: PhotosManageRepository;
  photos: PhotosRepository;
  blobs: BlobStore;
  /** Read when a batch is deleted (listeners may register after this service is made). */
  onPhotosDeleted: () => DeleteHook[];
  log: (msg: string, err?: unknown) => void;
  /** BLOB_REMOVAL_DEADLINE_MS unless set (config.blobRemovalDeadlineMs, tests). */
  removalDeadlineMs?: number;
}) {
  const { repo, photos, blobs } = deps;

  async function own(userId: string, id: string) {
    const row = UUID.test(id) ? await photos.find(userId, id) : undefined;
    if (!row) throw notFound(NOT_FOUND);
    return row;
  }

  return {
    async deleteMany(userId: string, rawIds: string[]): Promise<{ deleted: number; message: string }> {
      const ids = [...new Set(rawIds)];
      const bad = ids.find((id) => !UUID.test(id));
      if (bad !== undefined) throw badRequest(`ids: "${bad.slice(0, 64)}" is not a photo id; nothing was deleted.`);
      const rows = await repo.deleteMany(userId, ids, removeOrLeaveToSweep(blobs, deps.log, deps.removalDeadlineMs));
      if (rows === 'missing') throw notFound(`${NOT_FOUND} Nothing was deleted.`);
      for (const hook of deps.onPhotosDeleted()) {
        await hook(userId, ids).catch((err) => deps.log('onPhotosDeleted hook failed', err));
      }
      return { deleted: rows.length, message: `${photoWord(rows.length)} deleted` };
    },

    async setFavorite(userId: string, id: string, favorite: boolean) {
      if (!UUID.test(id) || !(await repo.setFavorite(userId, id, favorite))) throw notFound(NOT_FOUND);
      return { id, favorite };
    },

    async favoritesPage(userId: string, limit: number, cursor?: string): Promise<PhotoPage> {
      return keysetPage(
        photos,
        cursor,
        (after) => repo.favoritesPage(userId, limit, after),
        () => repo.favoritesCount(userId),
      );
    },

    async info(userId: string, id: string): Promise<PhotoInfo> {
      const row = await own(userId, id);
      const shown = await photos.withCurrentVersion(row);
      const edited = shown.appliedFilter !== null;
      const exif = row.exif ?? null;
      // The photo as it is shown and as 'Download' saves it: an edit is a JPEG of its own name
      // ('<name> (edited).jpg') and, from a larger original, of fewer pixels. The EXIF rows are
      // the original's, which the edit was made from.
      const pixels = edited ? appliedDimensions(row.width, row.height) : row;
      return {
        id: row.id,
        name: row.name,
        fileName: downloadFileName({ name: row.name, fileName: row.fileName, mime: shown.mime, edited }),
        mime: shown.mime,
        uploadedAt: row.uploadedAt.toISOString(),
        takenAt: row.takenAt ? row.takenAt.toISOString() : null,
        camera: cameraName(exif?.Make, exif?.Model),
        lens: text(exif?.LensModel),
        exposureTime: num(exif?.ExposureTime),
        fNumber: num(exif?.FNumber),
        iso: num(exif?.ISO),
        focalLength: num(exif?.FocalLength),
        width: pixels.width,
        height: pixels.height,
        size: shown.size,
        originalSize: row.size,
        place: placeFrom(exif),
        category: row.category,
        tags: row.tags,
        description: row.description,
        favorite: row.favorite,
        edited,
      };
    },

    /** The blob to send for a download and the name to save it under. */
    async download(userId: string, id: string, version: DownloadVersion) {
      const row = await own(userId, id);
      const shown = version === 'current' ? await photos.withCurrentVersion(row) : { ...row, appliedFilter: null };
      const edited = shown.appliedFilter !== null;
      // Opened here, before the answer's headers: a missing file is a 404 and a failing store a 503.
      const file = await blobs.open(shown.originalKey).catch((err: NodeJS.ErrnoException) => {
        throw err.code === 'ENOENT' ? notFound('Photo file not found.') : err;
      });
      return {
        mime: shown.mime,
        file,
        fileName: downloadFileName({ name: row.name, fileName: row.fileName, mime: shown.mime, edited }),
      };
    },
  };
}
export type PhotosManageService = ReturnType<typeof createPhotosManageService>;
