import { useCallback, useState, type ReactNode } from 'react';
import { useSubscription } from '../billing/subscription-query';
import { UpgradeModal } from '../pricing/upgrade-modal';
import { useAppStatus, useSetAppActive } from '../rewards/app-status-query';
import { AdOverlay } from './ad-overlay';

export const AD_OVERLAY_REQUIRED = 'Premium subscription required for ad overlay';

interface RunningAd {
  app: string;
  duration: number;
  /** Also the activity's Idempotency-Key: one per ad break. */
  eventId: string;
}

/**
 * The dashboard's Test Features handler (spec section 2): without an active subscription it opens
 * the upgrade modal with 'Premium subscription required for ad overlay'; with one it activates the
 * app status (if not already active) and starts the simulated ad overlay. Mount `element`.
 */
export function useAdBreak(): { start: (app: string, durationSeconds: number) => void; element: ReactNode } {
  const { isActive: subscribed } = useSubscription();
  const { data: status } = useAppStatus();
  const { mutate: setActive } = useSetAppActive();
  const [ad, setAd] = useState<RunningAd | null>(null);
  const [upgradeOpen, setUpgradeOpen] = useState(false);

  const start = useCallback(
    (app: string, duration: number) => {
      if (!subscribed) {
        setUpgradeOpen(true);
        return;
      }
      if (!status?.isActive) setActive(true);
      setAd((current) => current ?? { app, duration, eventId: crypto.randomUUID() });
    },
    [subscribed, status?.isActive, setActive],
  );

  const element = (
    <>
      {ad && (
        <AdOverlay
          key={ad.eventId}
          app={ad.app}
          duration={ad.duration}
          eventId={ad.eventId}
          onClose={() => setAd(null)}
        />
      )}
      <UpgradeModal open={upgradeOpen} onOpenChange={setUpgradeOpen} note={AD_OVERLAY_REQUIRED} />
    </>
  );
  return { start, element };
}
