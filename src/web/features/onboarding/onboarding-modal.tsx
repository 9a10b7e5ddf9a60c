import { lazy, Suspense, useEffect, useState } from 'react';
import { scheduleFirstRunOnboarding, useOnboarding } from './onboarding-store';

// The dialog (Radix Dialog with its focus and scroll locks, the steps and their icons) is code no
// first screen shows: it loads when the guide is about to open, not with the app.
const loadDialog = () => import('./onboarding-dialog');
const OnboardingDialog = lazy(() => loadDialog().then((m) => ({ default: m.OnboardingDialog })));

/**
 * The setup guide. Mounted once for signed-in users; auto-opens 1 s after the first load (the
 * page's load event), once the browser is idle. Its dialog mounts the first time the guide opens
 * (by itself or from Settings) and stays mounted.
 */
export function OnboardingModal() {
  const { open } = useOnboarding();
  const [wanted, setWanted] = useState(open);
  if (open && !wanted) setWanted(true);
  useEffect(() => scheduleFirstRunOnboarding(() => void loadDialog()), []);
  if (!wanted) return null;
  return (
    <Suspense fallback={null}>
      <OnboardingDialog />
    </Suspense>
  );
}
