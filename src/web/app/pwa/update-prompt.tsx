import { RefreshCw, X } from 'lucide-react';
import { Button } from '../../components/ui/button';

export interface UpdatePromptProps {
  needRefresh: boolean;
  onReload: () => void;
  onDismiss: () => void;
}

/** Shown when a new service worker is waiting: the user chooses when the page reloads. */
export function UpdatePrompt({ needRefresh, onReload, onDismiss }: UpdatePromptProps) {
  return (
    <div role="status" aria-live="polite" className="fixed inset-x-0 bottom-20 z-toast flex justify-center px-3">
      {needRefresh && (
        <div
          data-testid="update-prompt"
          className="flex w-full max-w-[420px] items-center gap-3 rounded-xl border border-border bg-surface p-3 text-fg shadow-lg"
        >
          <p className="min-w-0 flex-1 text-sm font-semibold">A new version of Eyevu is available</p>
          <Button size="md" onClick={onReload}>
            <RefreshCw className="size-4" aria-hidden />
            Reload
          </Button>
          <Button variant="ghost" size="icon" aria-label="Dismiss update" onClick={onDismiss}>
            <X className="size-5" aria-hidden />
          </Button>
        </div>
      )}
    </div>
  );
}
