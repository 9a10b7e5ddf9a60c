import { Bell, Sparkles, X } from 'lucide-react';
import { dismissToast, useToasts, type Toast } from '../../lib/toast';

/**
 * Renders the three toast lanes. Each is an always-mounted live region, so screen readers announce
 * every toast as it replaces the last; none takes focus.
 */
export function Toaster() {
  const { message, notification, reward } = useToasts();
  return (
    <>
      <MessageLane t={message} />
      <RewardLane t={reward} />
      <NotificationLane t={notification} />
    </>
  );
}

function MessageLane({ t }: { t: Toast | null }) {
  const destructive = t?.variant === 'destructive';
  return (
    <div
      className="pointer-events-none fixed inset-x-0 top-14 z-toast flex justify-center px-3"
      role={destructive ? 'alert' : 'status'}
      aria-live={destructive ? 'assertive' : 'polite'}
    >
      {t && (
        <div
          key={t.id}
          data-testid="toast"
          className={`pointer-events-auto flex w-full max-w-[420px] items-start gap-3 rounded-xl border p-3 shadow-lg ${
            destructive ? 'border-danger bg-danger text-danger-fg' : 'border-border bg-surface text-fg'
          }`}
        >
          <div className="min-w-0 flex-1">
            <p className="text-sm font-semibold">{t.title}</p>
            {t.description && <p className="mt-0.5 text-sm break-words opacity-90">{t.description}</p>}
          </div>
          <button
            type="button"
            aria-label="Dismiss notification"
            onClick={() => dismissToast(t.id)}
            className="-m-1 grid size-8 shrink-0 place-items-center rounded-md opacity-80 hover:opacity-100"
          >
            <X className="size-4" aria-hidden />
          </button>
        </div>
      )}
    </div>
  );
}

/** The centred reward card ('+N pts' over its message); it never takes the pointer. */
function RewardLane({ t }: { t: Toast | null }) {
  return (
    <div
      className="pointer-events-none fixed inset-x-0 top-1/3 z-popup flex justify-center px-6"
      role="status"
      aria-live="polite"
    >
      {t && (
        <div
          key={t.id}
          data-testid="reward-popup"
          className="flex max-w-[320px] flex-col items-center gap-1 rounded-2xl border border-border bg-surface px-6 py-4 text-center shadow-xl"
        >
          <Sparkles className="size-7 text-primary" aria-hidden />
          {t.title && <p className="text-2xl font-bold text-primary">{t.title}</p>}
          <p className="text-sm font-medium">{t.description}</p>
        </div>
      )}
    </div>
  );
}

function NotificationLane({ t }: { t: Toast | null }) {
  return (
    <div
      className="pointer-events-none fixed inset-x-0 bottom-24 z-toast flex justify-center px-3"
      role="status"
      aria-live="polite"
    >
      {t && (
        <div
          key={t.id}
          data-testid="notification-toast"
          className="pointer-events-auto flex w-full max-w-[400px] items-center gap-3 rounded-xl bg-fg px-3 py-2 text-bg shadow-lg"
        >
          <Bell className="size-4 shrink-0" aria-hidden />
          <p className="min-w-0 flex-1 text-sm font-medium">{t.title}</p>
          <button
            type="button"
            aria-label="Close notification"
            onClick={() => dismissToast(t.id, 'notification')}
            className="grid size-11 shrink-0 place-items-center rounded-md opacity-80 hover:opacity-100"
          >
            <X className="size-4" aria-hidden />
          </button>
        </div>
      )}
    </div>
  );
}
