import { useEffect, useId, useRef, type ReactNode } from 'react';
import { Button } from '../../components/ui/button';
import { Emoji } from '../../components/ui/emoji';
import { useDeadline } from './use-game-clock';

/**
 * The intro step every game shows before play: what to do, then Start. With `endsAt` (the hosting
 * ad's end, ms since epoch) an intro still showing then is over: `onExpire` instead of a game that
 * would start after its ad, while the ad break waits for it.
 */
export function GameIntro({
  title,
  icon,
  children,
  onStart,
  endsAt,
  onExpire,
}: {
  title: string;
  icon: string;
  children: ReactNode;
  onStart: () => void;
  endsAt?: number;
  onExpire?: () => void;
}) {
  useDeadline(endsAt ?? null, () => onExpire?.());
  const start = () => {
    if (endsAt !== undefined && Date.now() >= endsAt) onExpire?.();
    else onStart();
  };
  const textId = useId();
  // The choice that led here is gone: focus goes to Start, which reads out what to do.
  const startButton = useRef<HTMLButtonElement>(null);
  useEffect(() => startButton.current?.focus(), []);
  return (
    <div className="flex flex-col items-center gap-4 py-2 text-center">
      <span className="text-5xl" aria-hidden>
        <Emoji emoji={icon} />
      </span>
      <h3 className="text-lg font-bold">{title}</h3>
      <div id={textId} className="text-sm text-muted">
        {children}
      </div>
      <Button ref={startButton} size="lg" className="w-full" onClick={start} aria-describedby={textId}>
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
