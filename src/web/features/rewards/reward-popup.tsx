import { Sparkles } from 'lucide-react';
import { useNotifications } from './notifications-store';

/** Centred '+N pts' card, 2.5 s (spec section 4). Announced politely; not focus-stealing. */
export function RewardPopup() {
  const { reward } = useNotifications();
  return (
    <div
      className="pointer-events-none fixed inset-x-0 top-1/3 z-[90] flex justify-center px-6"
      role="status"
      aria-live="polite"
    >
      {reward && (
        <div
          key={reward.id}
          data-testid="reward-popup"
          className="flex max-w-[320px] flex-col items-center gap-1 rounded-2xl border border-border bg-surface px-6 py-4 text-center shadow-xl"
        >
          <Sparkles className="size-7 text-primary" aria-hidden />
          {reward.points > 0 && <p className="text-2xl font-bold text-primary">+{reward.points} pts</p>}
          <p className="text-sm font-medium">{reward.message}</p>
        </div>
      )}
    </div>
  );
}
