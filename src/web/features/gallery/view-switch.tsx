import { Heart, Images } from 'lucide-react';
import { cn } from '../../lib/cn';

export type GalleryView = 'all' | 'favorites';

const chip =
  'inline-flex min-h-11 items-center gap-2 rounded-full border px-4 text-sm font-semibold focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-primary';

/** All photos, or the Favorites album. */
export function ViewSwitch({ view, onChange }: { view: GalleryView; onChange: (v: GalleryView) => void }) {
  const option = (v: GalleryView, label: string, Icon: typeof Heart) => (
    <button
      type="button"
      aria-pressed={view === v}
      onClick={() => onChange(v)}
      className={cn(
        chip,
        view === v
          ? 'border-primary bg-primary text-primary-fg'
          : 'border-border bg-surface text-fg hover:bg-surface-2',
      )}
    >
      <Icon className="size-4" aria-hidden />
      {label}
    </button>
  );
  return (
    <div role="group" aria-label="Show" className="flex gap-2">
      {option('all', 'All Photos', Images)}
      {option('favorites', 'Favorites', Heart)}
    </div>
  );
}
