import { PREMIUM_REQUIRED_MESSAGE } from '@contract/subscriptions-values';
import { useMutation } from '@tanstack/react-query';
import { lazy, Suspense, useCallback, useState, type ReactNode } from 'react';
import { toast } from '../../lib/toast';
import { errorMessage } from '../../lib/api';
import { PhotoViewer } from '../gallery';
import { UpgradeModal, useSubscription } from '../subscription';
import { useAppStatus, useSetAppActive } from '../rewards';
import { startAdBreak } from './record-ad-break';

// The overlay (its mini games, the photo viewer it opens with, Radix Dialog) is fetched when a
// break is asked for, alongside the server's answer, never with the dashboard's first load.
const loadOverlay = () => {
  void PhotoViewer.preload();
  return import('./ad-overlay');
};
const AdOverlay = lazy(() => loadOverlay().then((m) => ({ default: m.AdOverlay })));

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
  const { isActive: subscribed } = useSubscription();
  const { data: status } = useAppStatus();
  const { mutate: setActive } = useSetAppActive();
  const [ad, setAd] = useState<RunningAd | null>(null);
  const [upgradeOpen, setUpgradeOpen] = useState(false);
  const begin = useMutation({
    mutationFn: (app: string) => startAdBreak(app),
    onSuccess: (started) =>
      setAd((current) => current ?? { app: started.app, duration: started.durationSeconds, adBreakId: started.id }),
    onError: (err) =>
      toast({ title: 'Error', description: errorMessage(err, 'Failed to start the ad'), variant: 'destructive' }),
  });
  const { mutate: requestAdBreak, isPending: starting } = begin;

  const start = useCallback(
    (app: string) => {
      if (!subscribed) {
        setUpgradeOpen(true);
        return;
      }
      if (ad || starting) return;
      if (!status?.isActive) setActive(true);
      void loadOverlay();
      requestAdBreak(app);
    },
    [subscribed, ad, starting, status?.isActive, setActive, requestAdBreak],
  );

  const element = (
    <>
      {ad && (
        <Suspense fallback={null}>
          <AdOverlay
            key={ad.adBreakId}
            app={ad.app}
            duration={ad.duration}
            adBreakId={ad.adBreakId}
            onClose={() => setAd(null)}
          />
        </Suspense>
      )}
      <UpgradeModal open={upgradeOpen} onOpenChange={setUpgradeOpen} note={PREMIUM_REQUIRED_MESSAGE} />
    </>
  );
  return { start, element };
}
