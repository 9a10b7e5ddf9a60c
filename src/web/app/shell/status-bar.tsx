import { formatClock12h } from '@domain/format';
import { BatteryFull, Signal, Wifi } from 'lucide-react';
import { useNow } from '../../lib/use-now';
import { THEME_LABELS, THEMES, useTheme, type Theme } from '../theme';

/**
 * The bar's layout is what the server paints before the script runs (`statusBarShape` in
 * src/server/http/web-pages.ts), shape for shape: a native select sizes itself to its longest
 * option in the browser's font, so the picker has a width of its own (the longest label fits), the
 * painted shape takes the same, and the product name stays where it was painted.
 */
export const THEME_PICKER_CLASS =
  'min-h-8 w-19 shrink-0 rounded-md border border-border bg-surface px-1 text-xs text-fg';

export function ThemePicker({ id = 'theme-picker' }: { id?: string }) {
  const [theme, setTheme] = useTheme();
  return (
    <>
      <label htmlFor={id} className="sr-only">
        Theme
      </label>
      <select id={id} value={theme} onChange={(e) => setTheme(e.target.value as Theme)} className={THEME_PICKER_CLASS}>
        {THEMES.map((t) => (
          <option key={t} value={t}>
            {THEME_LABELS[t]}
          </option>
        ))}
      </select>
    </>
  );
}

export function StatusBar({ active = false }: { active?: boolean }) {
  // Once a second, so the clock never lags by more than that.
  const now = useNow(1000);
  return (
    <header className="sticky top-0 z-shell flex items-center gap-2 border-b border-border bg-surface/95 px-4 pt-[max(env(safe-area-inset-top),0.5rem)] pb-2 backdrop-blur">
      <time
        dateTime={now.toISOString()}
        className="w-14 shrink-0 text-sm font-semibold tabular-nums"
        data-testid="clock"
      >
        {formatClock12h(now)}
      </time>
      <span className="shrink-0 text-base font-bold tracking-tight text-primary">Eyevu</span>
      {/* The right side takes all the room the name leaves and sets its parts against its end, so
          neither the name nor this side's box moves when the Active badge comes or goes (the
          painted bar of a static page cannot know of it, nor can the app before the status answer):
          placed between the two sides, the name moved by half the badge's width each time.
          With large text the bar is wider than a phone: the decorative icons give way first (they
          take only the room left, basis 0, and each one that does not fit wraps out of sight),
          never the badge or the picker; where even those two do not fit side by side (320 px at
          125 % text, WCAG's reflow width) the picker wraps below the badge, rather than off the
          screen where it could not be reached. */}
      <div className="flex min-w-0 flex-1 flex-wrap items-center justify-end-safe gap-1.5">
        {active && (
          <span className="shrink-0 rounded-full bg-success px-2 py-0.5 text-xs font-semibold text-success-fg">
            Active
          </span>
        )}
        <ThemePicker />
        <span
          className="flex h-4 max-w-fit min-w-0 grow basis-0 flex-wrap items-center justify-end gap-0.5 overflow-hidden text-muted"
          aria-hidden
        >
          <Signal className="size-3.5 shrink-0" />
          <Wifi className="size-3.5 shrink-0" />
          <BatteryFull className="size-4 shrink-0" />
        </span>
      </div>
    </header>
  );
}
