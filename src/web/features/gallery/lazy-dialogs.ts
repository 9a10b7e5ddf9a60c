import { lazyWhenOpen } from '../../lib/lazy-when-open';

/**
 * The gallery's dialogs, each loaded at its first opening: the screen's first load (and the
 * dashboard's, which reaches the viewer through the gallery's front door) shows them closed, so
 * neither their code nor Radix Dialog is part of it.
 */
export const PhotoViewer = lazyWhenOpen(() => import('./photo-viewer').then((m) => m.PhotoViewer));
export const ConfirmDeleteDialog = lazyWhenOpen(() =>
  import('./confirm-delete-dialog').then((m) => m.ConfirmDeleteDialog),
);
