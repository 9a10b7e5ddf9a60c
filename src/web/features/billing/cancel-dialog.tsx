import { Button } from '../../components/ui/button';
import { Dialog, DialogClose, DialogDescription, DialogTitle } from '../../components/ui/dialog';

interface CancelDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onConfirm: () => void;
  pending: boolean;
  /** A paid plan runs until this date; a trial ends at once (undefined). */
  endsOn?: string;
}

export function CancelSubscriptionDialog({ open, onOpenChange, onConfirm, pending, endsOn }: CancelDialogProps) {
  return (
    <Dialog open={open} onOpenChange={(next) => !pending && onOpenChange(next)}>
      <DialogTitle className="text-lg font-bold">Cancel subscription?</DialogTitle>
      <DialogDescription className="text-sm text-muted">
        {endsOn
          ? `Your plan stays active until ${endsOn}, then your account returns to the Free plan.`
          : 'Your account returns to the Free plan right away.'}
      </DialogDescription>
      <div className="flex flex-col gap-2">
        <Button variant="danger" onClick={onConfirm} pending={pending}>
          {pending ? 'Processing...' : 'Yes, cancel'}
        </Button>
        <DialogClose asChild>
          <Button variant="outline" disabled={pending}>
            Keep my plan
          </Button>
        </DialogClose>
      </div>
    </Dialog>
  );
}
