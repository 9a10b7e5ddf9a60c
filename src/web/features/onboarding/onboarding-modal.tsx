import { useEffect } from 'react';
import { lazyWhenOpen } from '../../lib/lazy-when-open';
import { onIdle } from '../../lib/when-idle';
import { scheduleFirstRunOnboarding, useOnboarding } from './onboarding-store';

/** The dialog's code (Radix Dialog with it) stays out of the entry chunk every signed-in page loads. */
const SetupGuideDialog = lazyWhenOpen(() => import('./onboarding-dialog').then((m) => m.OnboardingDialog));

/** Loads the dialog's code ahead of its first opening (tests; the first run does it itself). */
export const preloadSetupGuide = SetupGuideDialog.preload;

/**
 * The setup guide. Mounted once for signed-in users; auto-opens 1 s after the first load. On that
 * first run its code is fetched at the first idle moment before the second is up, so the guide opens
 * on time; on every other load it is fetched only if the guide is opened (Settings, Test Features).
 */
export function OnboardingModal() {
  const { open } = useOnboarding();
  useEffect(() => scheduleFirstRunOnboarding(() => onIdle(() => void preloadSetupGuide())), []);
  return <SetupGuideDialog open={open} />;
}
