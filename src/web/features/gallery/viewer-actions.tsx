import * as Dialog from '@radix-ui/react-dialog';
import { Download, Heart, Info, Share2, Trash2, X } from 'lucide-react';
import { useState } from 'react';
import { toast } from '../../lib/toast';
import { errorMessage } from '../../lib/api';
import { cn } from '../../lib/cn';
import { useReturnFocus } from '../../lib/use-return-focus';
import { ConfirmDeleteDialog } from './confirm-delete-dialog';
import { deleteFailure, downloadUrl, useDeletePhotos, useFavoriteSaving, useSetFavorite } from './manage-photos';
import { PhotoInfoDialog } from './photo-info';
import type { Photo } from '@contract/photos';
import { sharePhoto } from './share-photo';

const iconButton =
  'grid size-11 place-items-center rounded-full hover:bg-white/10 focus-visible:outline-2 focus-visible:outline-white';

/** The caption's share, favorite and info buttons (spec: Photo viewer overlay), now doing what they say. */
export function ViewerActions({ photo }: { photo: Photo }) {
  const [infoOpen, setInfoOpen] = useState(false);
  const [sharing, setSharing] = useState(false);
  const setFavorite = useSetFavorite();
  const savingFavorite = useFavoriteSaving(photo.id);

  const share = async () => {
    setSharing(true);
    try {
      const outcome = await sharePhoto(photo);
      if (outcome === 'unavailable') {
        toast({
          title: 'Sharing is not available',
          description: 'This browser cannot share photos. Use Download to save the photo instead.',
        });
      }
    } catch (err) {
      toast({
        title: 'Share failed',
        description: errorMessage(err, 'The photo could not be shared.'),
        variant: 'destructive',
      });
    } finally {
      setSharing(false);
    }
  };

  const toggleFavorite = () => {
    if (savingFavorite) return;
    setFavorite.mutate(
      { id: photo.id, favorite: !photo.favorite },
      {
        onError: (err) =>
          toast({
            title: 'Error',
            description: errorMessage(err, 'The favorite could not be saved. Please try again.'),
            variant: 'destructive',
          }),
      },
    );
  };

  return (
    <>
      <button type="button" aria-label="Share" onClick={share} disabled={sharing} className={iconButton}>
        <Share2 className="size-5" aria-hidden />
      </button>
      <button
        type="button"
        aria-label="Favorite"
        aria-pressed={photo.favorite}
        // Not `disabled`: Chrome would move focus off it to the page.
        aria-disabled={savingFavorite || undefined}
        onClick={toggleFavorite}
        className={cn(iconButton, 'aria-disabled:cursor-progress')}
      >
        <Heart className={cn('size-5', photo.favorite && 'fill-red-500 text-red-500')} aria-hidden />
      </button>
      <button
        type="button"
        aria-label="Info"
        aria-haspopup="dialog"
        onClick={() => setInfoOpen(true)}
        className={iconButton}
      >
        <Info className="size-5" aria-hidden />
      </button>
      <PhotoInfoDialog photoId={photo.id} open={infoOpen} onOpenChange={setInfoOpen} />
    </>
  );
}

/**
 * Download and Delete for the viewer's header (the gallery's viewer; not the ad overlay's).
 * Download saves the photo under its own file name; an edited photo offers the edit or the original.
 */
export function ViewerManageActions({ photo, onDeleted }: { photo: Photo; onDeleted: () => void }) {
  const [choosing, setChoosing] = useState(false);
  // The photo the confirmation was opened for: the viewer may show another by the time it is
  // answered (its photo deleted in another tab and the list refreshed), and that one must not go.
  const [confirming, setConfirming] = useState<string | null>(null);
  const del = useDeletePhotos();
  const edited = !!photo.appliedFilter;
  // The Download choice is opened by a plain button: closing gives focus back to it.
  const returnFocusFromChoice = useReturnFocus(choosing);

  const confirmDelete = () =>
    confirming !== null &&
    del.mutate([confirming], {
      onSuccess: () => {
        setConfirming(null);
        onDeleted();
        toast({ title: 'Photo deleted', variant: 'success' });
      },
      onError: (err) => {
        setConfirming(null);
        toast(deleteFailure(err, 1, false));
      },
    });

  return (
    <>
      {edited ? (
        <button
          type="button"
          aria-label="Download"
          aria-haspopup="dialog"
          onClick={() => setChoosing(true)}
          className={iconButton}
        >
          <Download className="size-5" aria-hidden />
        </button>
      ) : (
        <a href={downloadUrl(photo.id, 'original')} download aria-label="Download" className={iconButton}>
          <Download className="size-5" aria-hidden />
        </a>
      )}
      <button
        type="button"
        aria-label="Delete"
        aria-haspopup="dialog"
        onClick={() => setConfirming(photo.id)}
        className={iconButton}
      >
        <Trash2 className="size-5" aria-hidden />
      </button>

      <Dialog.Root open={choosing} onOpenChange={setChoosing}>
        <Dialog.Portal>
          <Dialog.Overlay className="fixed inset-0 z-[60] bg-black/40" />
          <Dialog.Content
            onCloseAutoFocus={returnFocusFromChoice}
            className="fixed top-1/2 left-1/2 z-[61] flex w-[calc(100%-1.5rem)] max-w-[400px] -translate-x-1/2 -translate-y-1/2 flex-col gap-3 rounded-2xl bg-surface p-5 text-fg shadow-xl"
          >
            <div className="flex items-center justify-between">
              <Dialog.Title className="text-lg font-bold">Download photo</Dialog.Title>
              <Dialog.Close
                aria-label="Close"
                className="grid size-11 place-items-center rounded-full hover:bg-surface-2"
              >
                <X className="size-5" aria-hidden />
              </Dialog.Close>
            </div>
            <Dialog.Description className="text-sm text-muted">
              This photo has the {photo.appliedFilter?.filterName} filter applied.
            </Dialog.Description>
            {(
              [
                ['current', 'Edited version'],
                ['original', 'Original'],
              ] as const
            ).map(([version, label]) => (
              <a
                key={version}
                href={downloadUrl(photo.id, version)}
                download
                onClick={() => setChoosing(false)}
                className="inline-flex min-h-11 items-center justify-center gap-2 rounded-xl border border-border px-4 text-sm font-semibold hover:bg-surface-2"
              >
                <Download className="size-4" aria-hidden />
                {label}
              </a>
            ))}
          </Dialog.Content>
        </Dialog.Portal>
      </Dialog.Root>

      <ConfirmDeleteDialog
        open={confirming !== null}
        onOpenChange={(open) => !open && setConfirming(null)}
        count={1}
        onConfirm={confirmDelete}
        pending={del.isPending}
      />
    </>
  );
}
