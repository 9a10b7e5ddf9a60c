import { X } from 'lucide-react';
import { dismissToast, useCurrentToast } from './toast-store';

/** Always-mounted live region: screen readers announce each toast as it replaces the last. */
export function Toaster() {
  const t = useCurrentToast();
  const destructive = t?.variant === 'destructive';
  return (
    <div
      className="pointer-events-none fixed inset-x-0 top-14 z-[100] flex justify-center px-3"
      role={destructive ? 'alert' : 'status'}
      aria-live={destructive ? 'assertive' : 'polite'}
    >
      {t && (
        <div
          key={t.id}
          data-testid="toast"
          className={`pointer-events-auto flex w-full max-w-[420px] items-start gap-3 rounded-xl border p-3 shadow-lg ${
            destructive ? 'border-danger bg-danger text-white' : 'border-border bg-surface text-fg'
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
