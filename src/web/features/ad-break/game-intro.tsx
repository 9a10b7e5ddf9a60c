import { useEffect, useId, useRef, type ReactNode } from 'react';
import { Button } from '../../components/ui/button';
import { Emoji } from '../../components/ui/emoji';

/** The intro step every game shows before play: what to do, then Start. */
export function GameIntro({
  title,
  icon,
  children,
  onStart,
}: {
  title: string;
  icon: string;
  children: ReactNode;
  onStart: () => void;
}) {
  const textId = useId();
  // The choice that led here is gone: focus goes to Start, which reads out what to do.
  const start = useRef<HTMLButtonElement>(null);
  useEffect(() => start.current?.focus(), []);
  return (
    <div className="flex flex-col items-center gap-4 py-2 text-center">
      <span className="text-5xl" aria-hidden>
        <Emoji emoji={icon} />
      </span>
      <h3 className="text-lg font-bold">{title}</h3>
      <div id={textId} className="text-sm text-muted">
        {children}
      </div>
      <Button ref={start} size="lg" className="w-full" onClick={onStart} aria-describedby={textId}>
        Start Game
      </Button>
    </div>
  );
}

/** Polite live region for a game's feedback (match, hit, answer...). Always mounted so changes are announced. */
export function GameAnnouncer({ message }: { message: string }) {
  return (
    <p role="status" aria-live="polite" className="min-h-5 text-center text-sm font-medium">
      {message}
    </p>
  );
}

export function StatPill({ label, value }: { label: string; value: ReactNode }) {
  return (
    <div className="flex flex-col items-center rounded-lg bg-surface-2 px-3 py-1">
      <span className="text-xs text-muted">{label}</span>
      <span className="text-sm font-bold tabular-nums">{value}</span>
    </div>
  );
}
