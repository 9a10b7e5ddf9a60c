import * as Dialog from '@radix-ui/react-dialog';
import { deletePhotosQuestion } from '@domain/photo-details';
import { Button } from '../../components/ui/button';
import { useReturnFocus } from '../../lib/use-return-focus';

interface ConfirmDeleteProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** How many photos the question names ('Delete 3 photos?'). */
  count: number;
  onConfirm: () => void;
  pending: boolean;
}

/** Asks before photos are deleted, naming how many; Escape or Cancel keeps them. */
export function ConfirmDeleteDialog({ open, onOpenChange, count, onConfirm, pending }: ConfirmDeleteProps) {
  // Opened by a plain button, not a Radix trigger: without this, closing drops focus to the page.
  const returnFocus = useReturnFocus(open);
  return (
    <Dialog.Root open={open} onOpenChange={(next) => !pending && onOpenChange(next)}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-[70] bg-black/60" />
        <Dialog.Content
          role="alertdialog"
          onCloseAutoFocus={returnFocus}
          className="fixed top-1/2 left-1/2 z-[71] flex w-[calc(100%-1.5rem)] max-w-[400px] -translate-x-1/2 -translate-y-1/2 flex-col gap-4 rounded-2xl bg-surface p-5 text-fg shadow-xl"
        >
          <Dialog.Title className="text-lg font-bold">{deletePhotosQuestion(count)}</Dialog.Title>
          <Dialog.Description className="text-sm text-muted">
            {count === 1 ? 'The photo is' : 'The photos are'} removed from your library, albums and smart albums. This
            cannot be undone.
          </Dialog.Description>
          <div className="flex flex-col gap-2">
            <Button variant="danger" onClick={onConfirm} pending={pending}>
              {pending ? 'Deleting...' : 'Delete'}
            </Button>
            <Dialog.Close asChild>
              <Button variant="outline" pending={pending}>
                Cancel
              </Button>
            </Dialog.Close>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
