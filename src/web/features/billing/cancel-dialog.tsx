import * as Dialog from '@radix-ui/react-dialog';
import { Button } from '../../components/ui/button';
import { useReturnFocus } from '../../lib/use-return-focus';

interface CancelDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onConfirm: () => void;
  pending: boolean;
  /** A paid plan runs until this date; a trial ends at once (undefined). */
  endsOn?: string;
}

export function CancelSubscriptionDialog({ open, onOpenChange, onConfirm, pending, endsOn }: CancelDialogProps) {
  const returnFocus = useReturnFocus(open);
  return (
    <Dialog.Root open={open} onOpenChange={(next) => !pending && onOpenChange(next)}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-[70] bg-black/60" />
        <Dialog.Content
          onCloseAutoFocus={returnFocus}
          className="fixed top-1/2 left-1/2 z-[71] flex w-[calc(100%-1.5rem)] max-w-[400px] -translate-x-1/2 -translate-y-1/2 flex-col gap-4 rounded-2xl bg-surface p-5 text-fg shadow-xl"
        >
          <Dialog.Title className="text-lg font-bold">Cancel subscription?</Dialog.Title>
          <Dialog.Description className="text-sm text-muted">
            {endsOn
              ? `Your plan stays active until ${endsOn}, then your account returns to the Free plan.`
              : 'Your account returns to the Free plan right away.'}
          </Dialog.Description>
          <div className="flex flex-col gap-2">
            <Button variant="danger" onClick={onConfirm} disabled={pending}>
              {pending ? 'Processing...' : 'Yes, cancel'}
            </Button>
            <Dialog.Close asChild>
              <Button variant="outline" disabled={pending}>
                Keep my plan
              </Button>
            </Dialog.Close>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
