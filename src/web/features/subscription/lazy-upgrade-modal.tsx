import { lazy, Suspense, useState } from 'react';
import type { UpgradeModalProps } from './upgrade-modal';

// The modal (Radix Dialog with its focus and scroll locks, the plan picker) is code no first screen
// shows, while this front door is loaded by every screen that reads the subscription (the pricing
// page among them): the modal's code loads the first time it opens.
const Modal = lazy(() => import('./upgrade-modal').then((m) => ({ default: m.UpgradeModal })));

/** The 'Upgrade to Premium' modal (upgrade-modal.tsx), mounted from its first opening on. */
export function UpgradeModal(props: UpgradeModalProps) {
  const [wanted, setWanted] = useState(props.open);
  if (props.open && !wanted) setWanted(true);
  if (!wanted) return null;
  return (
    <Suspense fallback={null}>
      <Modal {...props} />
    </Suspense>
  );
}
