import * as Dialog from '@radix-ui/react-dialog';
import { X } from 'lucide-react';
import { Link } from 'wouter';

export interface PendingAd {
  app: string;
  durationSeconds: number;
  /** False: the user needs a subscription first. */
  allowed: boolean;
}

/**
 * Stand-in until the ad overlay (issue 6) plugs into the dashboard's `onStartAd`. Without an active
 * subscription it shows the spec's note; with one it says which ad would play.
 */
export function AdPlaceholderDialog({ ad, onClose }: { ad: PendingAd | null; onClose: () => void }) {
  return (
    <Dialog.Root open={!!ad} onOpenChange={(o) => !o && onClose()}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-[80] bg-black/50" />
        <Dialog.Content
          aria-describedby={undefined}
          className="fixed top-1/2 left-1/2 z-[81] flex w-[calc(100%-2rem)] max-w-[380px] -translate-x-1/2 -translate-y-1/2 flex-col gap-3 rounded-2xl bg-surface p-5 text-fg shadow-2xl"
        >
          <div className="flex items-center justify-between">
            <Dialog.Title className="text-lg font-bold">
              {ad?.allowed ? `${ad.app} ad (${ad.durationSeconds}s)` : 'Upgrade to Premium'}
            </Dialog.Title>
            <Dialog.Close aria-label="Close" className="grid size-11 place-items-center rounded-lg hover:bg-surface-2">
              <X className="size-5" aria-hidden />
            </Dialog.Close>
          </div>
          {ad?.allowed ? (
            <p className="text-sm text-muted">The simulated ad overlay is not available yet.</p>
          ) : (
            <>
              <p className="text-sm text-muted">Premium subscription required for ad overlay</p>
              <Link
                href="/pricing"
                onClick={onClose}
                className="inline-flex min-h-11 items-center justify-center rounded-xl bg-primary px-4 text-sm font-semibold text-primary-fg"
              >
                View Plans
              </Link>
            </>
          )}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
