import { Bell, X } from 'lucide-react';
import { dismissNotification, useNotifications } from './notifications-store';

/** The latest notification, one at a time, for 3 s (spec sections 3 and 4). */
export function NotificationToast() {
  const { current } = useNotifications();
  return (
    <div
      className="pointer-events-none fixed inset-x-0 bottom-24 z-[95] flex justify-center px-3"
      role="status"
      aria-live="polite"
    >
      {current && (
        <div
          key={current.id}
          data-testid="notification-toast"
          className="pointer-events-auto flex w-full max-w-[400px] items-center gap-3 rounded-xl bg-fg px-3 py-2 text-bg shadow-lg"
        >
          <Bell className="size-4 shrink-0" aria-hidden />
          <p className="min-w-0 flex-1 text-sm font-medium">{current.message}</p>
          <button
            type="button"
            aria-label="Close notification"
            onClick={() => dismissNotification(current.id)}
            className="grid size-11 shrink-0 place-items-center rounded-md opacity-80 hover:opacity-100"
          >
            <X className="size-4" aria-hidden />
          </button>
        </div>
      )}
    </div>
  );
}
