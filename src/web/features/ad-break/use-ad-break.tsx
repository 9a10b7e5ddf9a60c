import { PREMIUM_REQUIRED_MESSAGE } from '@contract/subscriptions-values';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useCallback, useRef, useState, type ReactNode } from 'react';
import { lazyPreloadable } from '../../lib/lazy-when-open';
import { toast } from '../../lib/toast';
import { errorMessage, errorStatus } from '../../lib/api';
import { PhotoViewer } from '../gallery';
import { subscriptionQueryOptions, UpgradeModal, useSubscription } from '../subscription';
import { useAppStatus, useSetAppActive } from '../rewards';
import { startAdBreak } from './record-ad-break';

// The overlay (its mini games, the photo viewer it opens with, Radix Dialog) is fetched when a
// break is asked for, alongside the server's answer, never with the dashboard's first load. The
// break is shown once both are there, so the overlay renders at once, without a suspended turn.
const AdOverlay = lazyPreloadable(() => import('./ad-overlay').then((m) => m.AdOverlay));

interface RunningAd {
  app: string;
  duration: number;
  /** The server's ad-break id, also the activity's Idempotency-Key. */
  adBreakId: string;
}

/**
 * The dashboard's Test Features handler: without an active subscription it opens the upgrade modal
 * with `PREMIUM_REQUIRED_MESSAGE`; with one it activates the
 * app status (if not already active), asks the server to start the ad break and then shows the
 * simulated ad overlay for the server's duration (the server times the break; only it can let the
 * activity count). Presses while a break starts or runs are ignored. Mount `element`.
 */
export function useAdBreak(): { start: (app: string) => void; element: ReactNode } {
  // A plan still on its way is waited for (see `start`). One that cannot be read (a limit, a server
  // restarting) is left to the server, which pays an overlay's ad only to a plan (a 403 opens the
  // prompt): a paying user whose plan could not be read was shown the upgrade prompt.
  const { isActive: subscribed, data: plan } = useSubscription();
  const planKnown = plan !== undefined;
  const { data: status } = useAppStatus();
  const { mutate: setActive } = useSetAppActive();
  const [ad, setAd] = useState<RunningAd | null>(null);
  const [upgradeOpen, setUpgradeOpen] = useState(false);
  const begin = useMutation({
    // Offline, TanStack would hold the request until the connection is back and then start a break
    // nobody asked for any more, the overlay popping up minutes later; a press answers now instead.
    networkMode: 'always',
    mutationFn: async (app: string) =>
      (await Promise.all([startAdBreak(app), AdOverlay.preload(), PhotoViewer.preload()]))[0],
    onSuccess: (started) =>
      setAd((current) => current ?? { app: started.app, duration: started.durationSeconds, adBreakId: started.id }),
    onError: (err) => {
      if (errorStatus(err) === 403) {
        setUpgradeOpen(true);
        return;
      }
      toast({ title: 'Error', description: errorMessage(err, 'Failed to start the ad'), variant: 'destructive' });
    },
  });
  const { mutate: requestAdBreak, isPending: starting } = begin;

  const qc = useQueryClient();
  const deciding = useRef(false);
  const go = useCallback(
    (app: string) => {
      requestAdBreak(app, {
        // The app status is turned on once the server has started the break: sent beside it, a
        // press without a connection (or with the plan unknown and refused) left an activation
        // waiting, which switched monitoring on minutes later, when the connection came back.
        onSuccess: () => {
          if (!status?.isActive) setActive(true);
        },
      });
    },
    [status?.isActive, setActive, requestAdBreak],
  );
  const start = useCallback(
    (app: string) => {
      if (!subscribed && planKnown) {
        setUpgradeOpen(true);
        return;
      }
      if (ad || starting || deciding.current) return;
      if (planKnown) {
        go(app);
        return;
      }
      // A press before the plan's first answer (a reload, then a press at once) waits for it: sent
      // on, a free user's break was started and the overlay played in full, its ad then refused
      // unpaid. Only a plan that cannot be read at all is left to the server.
      deciding.current = true;
      qc.fetchQuery(subscriptionQueryOptions()).then(
        (answer) => {
          deciding.current = false;
          if (answer.status === 'active') go(app);
          else setUpgradeOpen(true);
        },
        () => {
          deciding.current = false;
          go(app);
        },
      );
    },
    [subscribed, planKnown, ad, starting, qc, go],
  );

  const element = (
    <>
      {ad && (
        <AdOverlay
          key={ad.adBreakId}
          app={ad.app}
          duration={ad.duration}
          adBreakId={ad.adBreakId}
          onClose={() => setAd(null)}
        />
      )}
      <UpgradeModal open={upgradeOpen} onOpenChange={setUpgradeOpen} note={PREMIUM_REQUIRED_MESSAGE} />
    </>
  );
  return { start, element };
}
