import { cn } from '../../lib/cn';

const LOOK = {
  default: { track: 'h-2 bg-surface-2', bar: 'bg-primary duration-300' },
  // The ad panel is black and ticks once a second: the bar glides linearly from tick to tick.
  ad: { track: 'h-1.5 bg-white/20', bar: 'bg-warning duration-1000 ease-linear' },
} as const;

export interface ProgressBarProps {
  /** Percent done, 0 to 100. */
  value: number;
  /** The accessible name, e.g. 'Setup progress'. */
  label: string;
  look?: keyof typeof LOOK;
}

/** A determinate progress bar: screen readers hear the label and the whole percent. */
export function ProgressBar({ value, label, look = 'default' }: ProgressBarProps) {
  const percent = Math.min(100, Math.max(0, value));
  return (
    <div
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={Math.round(percent)}
      className={cn('overflow-hidden rounded-full', LOOK[look].track)}
    >
      <div className={cn('h-full transition-[width]', LOOK[look].bar)} style={{ width: `${percent}%` }} />
    </div>
  );
}
