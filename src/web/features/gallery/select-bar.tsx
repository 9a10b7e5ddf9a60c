import { Trash2, X } from 'lucide-react';
import { useState } from 'react';
import { toast } from '../../lib/toast';
import { ConfirmDeleteDialog } from './lazy-dialogs';
import { deleteFailure, useDeletePhotos } from './manage-photos';

/**
 * The bar shown while photos are being selected: how many, Delete (after a confirmation that
 * says how many) and Cancel. Sits above the bottom navigation, whose height grows by the home
 * indicator's inset on a phone that has one (80 px alone met the navigation on an iPhone).
 */
export function SelectBar({ selected, onDone }: { selected: string[]; onDone: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const del = useDeletePhotos();
  const count = selected.length;

  const confirm = () =>
    del.mutate(selected, {
      onSuccess: (deleted) => {
        setConfirming(false);
        onDone();
        toast({ title: deleted === 1 ? 'Photo deleted' : `${deleted} photos deleted`, variant: 'success' });
      },
      onError: (err) => {
        setConfirming(false);
        // Those deleted leave the grid and the selection; the rest stay selected, to try again.
        toast(deleteFailure(err, selected.length, true));
      },
    });

  return (
    <div
      role="toolbar"
      aria-label="Selection"
      data-bottom-panel=""
      className="fixed inset-x-0 bottom-[calc(4.5rem+env(safe-area-inset-bottom))] z-40 mx-auto flex w-[calc(100%-1.5rem)] max-w-[406px] items-center justify-between gap-2 rounded-2xl border border-border bg-surface p-2 pl-4 shadow-lg"
    >
      <span className="text-sm font-semibold" aria-live="polite" data-testid="selected-count">
        {count === 1 ? '1 selected' : `${count} selected`}
      </span>
      <div className="flex gap-1">
        <button
          type="button"
          onClick={() => setConfirming(true)}
          disabled={count === 0}
          className="inline-flex min-h-11 items-center gap-2 rounded-xl bg-danger px-4 text-sm font-semibold text-danger-fg disabled:opacity-50"
        >
          <Trash2 className="size-4" aria-hidden />
          Delete
        </button>
        <button
          type="button"
          onClick={onDone}
          aria-label="Cancel selection"
          className="grid size-11 place-items-center rounded-xl hover:bg-surface-2"
        >
          <X className="size-5" aria-hidden />
        </button>
      </div>
      <ConfirmDeleteDialog
        open={confirming}
        onOpenChange={setConfirming}
        count={count}
        onConfirm={confirm}
        pending={del.isPending}
      />
    </div>
  );
}
