import { gameTimeLimit, type PlayableGameType } from '@domain/games/scoring';
import { formatCountdown, formatSizeMb } from '@domain/format';
import { skipReward, skipRewardMessage } from '@domain/rewards';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ChevronLeft, ChevronRight, Gamepad2, X } from 'lucide-react';
import { useCallback, useEffect, useRef, useState } from 'react';
import { toast } from '../../app/toast-store';
import { Button } from '../../components/ui/button';
import { errorMessage } from '../../lib/api';
import { MiniGameDialog, type MiniGameOutcome } from './mini-game-dialog';
import { adBreakActivity, recordAdBreak } from './record-ad-break';

/** The few photo fields the overlay shows (a subset of the Photo contract). */
interface OverlayPhoto {
  id: string;
  name: string;
  url: string;
  previewUrl?: string;
  thumbnailUrl: string;
  uploadedAt: string;
  size: number;
}

export interface AdOverlayProps {
  app: string;
  /** Seconds. */
  duration: number;
  /** Called when the ad break is over (recorded) or dismissed. */
  onClose: () => void;
  /** Shows the skip reward; defaults to a 2.5 s toast (spec: reward popup 2.5 s). */
  onReward?: (message: string, points: number) => void;
  /** One id per ad break; the server records the event once. */
  eventId?: string;
}

const REWARD_POPUP_MS = 2500;
const defaultReward = (message: string) => toast({ title: message, variant: 'success', duration: REWARD_POPUP_MS });

/**
 * Spec section 2, 'Simulated ad overlay': the ad panel behind, the user's photos on top with an m:ss
 * countdown, and the mini-game dialog from Play Game. At 0 the break is recorded once
 * (`POST /api/activities` with an Idempotency-Key), the skip reward shown, stats and activities
 * refreshed, and the overlay closes. A game still in play at 0 is waited for (its time limit is
 * capped by the ad's remaining time, so it ends within about a second).
 */
export function AdOverlay({ app, duration, onClose, onReward = defaultReward, eventId: givenId }: AdOverlayProps) {
  const qc = useQueryClient();
  const [eventId] = useState(() => givenId ?? crypto.randomUUID());
  const [remaining, setRemaining] = useState(duration);
  const [gameOpen, setGameOpen] = useState(false);
  const [gameInPlay, setGameInPlay] = useState(false);
  const [gameLimit, setGameLimit] = useState(() => gameTimeLimit(duration));
  const outcome = useRef<MiniGameOutcome | null>(null);
  const finished = useRef(false);

  // Once per second from the ad duration to 0.
  useEffect(() => {
    if (remaining <= 0) return;
    const id = setTimeout(() => setRemaining((r) => Math.max(0, r - 1)), 1000);
    return () => clearTimeout(id);
  }, [remaining]);

  const record = useMutation({
    mutationFn: () => recordAdBreak(adBreakActivity(app, duration, outcome.current), eventId),
    onSuccess: async () => {
      const points = skipReward(duration);
      onReward(skipRewardMessage(points), points);
      await Promise.all([
        qc.invalidateQueries({ queryKey: ['/api/stats'] }),
        qc.invalidateQueries({ queryKey: ['/api/activities'] }),
        qc.invalidateQueries({ queryKey: ['/api/rewards'] }),
      ]);
    },
    onError: (err) =>
      toast({ title: 'Error', description: errorMessage(err, 'Failed to record activity'), variant: 'destructive' }),
    onSettled: () => onClose(),
  });
  const { mutate } = record;

  useEffect(() => {
    if (remaining > 0 || gameInPlay || finished.current) return;
    finished.current = true;
    setGameOpen(false);
    mutate();
  }, [remaining, gameInPlay, mutate]);

  const onFinish = useCallback((result: MiniGameOutcome) => {
    // A finished game is kept over a later skip in the same ad break.
    if (result.completed || !outcome.current?.completed) outcome.current = result;
    setGameInPlay(false);
  }, []);

  const openGame = () => {
    setGameLimit(Math.max(1, Math.min(remaining, gameTimeLimit(duration))));
    setGameOpen(true);
  };

  const elapsed = Math.round(((duration - remaining) / duration) * 100);

  return (
    <div
      className="fixed inset-0 z-50 mx-auto flex max-w-[430px] flex-col bg-black text-white"
      data-testid="ad-overlay"
    >
      <section aria-label="Sample Advertisement" className="flex flex-col gap-2 p-4">
        <div className="flex items-center justify-between text-sm">
          <span className="font-semibold">Sample Advertisement</span>
          <span className="opacity-80">{app}</span>
        </div>
        <div
          role="progressbar"
          aria-label="Ad progress"
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={elapsed}
          className="h-1.5 overflow-hidden rounded-full bg-white/20"
        >
          <div
            className="h-full bg-warning transition-[width] duration-1000 ease-linear"
            style={{ width: `${elapsed}%` }}
          />
        </div>
        <p className="text-xs opacity-80">Ad continues playing behind gallery</p>
      </section>

      <OverlayGallery
        remaining={remaining}
        onClose={onClose}
        onPlayGame={record.isPending || remaining <= 0 ? undefined : openGame}
      />

      <MiniGameDialog
        open={gameOpen}
        onOpenChange={setGameOpen}
        app={app}
        adDuration={duration}
        timeLimitSeconds={gameLimit}
        onGameStart={(_game: PlayableGameType) => setGameInPlay(true)}
        onFinish={onFinish}
      />
    </div>
  );
}

/** The user's photos on top of the ad, with the countdown badge and Play Game. */
function OverlayGallery({
  remaining,
  onClose,
  onPlayGame,
}: {
  remaining: number;
  onClose: () => void;
  onPlayGame?: () => void;
}) {
  const photos = useQuery<OverlayPhoto[]>({ queryKey: ['/api/photos'] });
  const list = photos.data ?? [];
  const [index, setIndex] = useState(0);
  const photo = list.length ? list[((index % list.length) + list.length) % list.length] : undefined;

  return (
    <section
      aria-label="Your Photos"
      className="mx-2 mb-2 flex min-h-0 flex-1 flex-col gap-3 rounded-2xl bg-surface p-3 text-fg shadow-2xl"
    >
      <header className="flex items-center gap-2">
        <h2 className="flex-1 text-lg font-bold">Your Photos</h2>
        <span
          className="rounded-full bg-primary px-3 py-1 text-sm font-semibold text-primary-fg tabular-nums"
          aria-label={`Ad ends in ${formatCountdown(remaining)}`}
          data-testid="ad-countdown"
        >
          {formatCountdown(remaining)}
        </span>
        <Button variant="ghost" size="icon" aria-label="Close gallery" onClick={onClose}>
          <X className="size-5" aria-hidden />
        </Button>
      </header>
      <div className="relative grid min-h-0 flex-1 place-items-center overflow-hidden rounded-xl bg-surface-2">
        {photo ? (
          <img src={photo.previewUrl ?? photo.url} alt={photo.name} className="max-h-full max-w-full object-contain" />
        ) : (
          <p className="p-6 text-center text-sm text-muted">{photos.isLoading ? 'Loading...' : 'No photos yet'}</p>
        )}
        {list.length > 1 && (
          <>
            <Button
              variant="outline"
              size="icon"
              aria-label="Previous photo"
              className="absolute top-1/2 left-2 -translate-y-1/2 rounded-full"
              onClick={() => setIndex((i) => i - 1)}
            >
              <ChevronLeft className="size-5" aria-hidden />
            </Button>
            <Button
              variant="outline"
              size="icon"
              aria-label="Next photo"
              className="absolute top-1/2 right-2 -translate-y-1/2 rounded-full"
              onClick={() => setIndex((i) => i + 1)}
            >
              <ChevronRight className="size-5" aria-hidden />
            </Button>
          </>
        )}
      </div>
      {photo && (
        <p className="text-xs text-muted">
          {photo.name} • {formatSizeMb(photo.size)}
        </p>
      )}
      {onPlayGame && (
        <Button size="lg" onClick={onPlayGame}>
          <Gamepad2 className="size-5" aria-hidden />
          Play Game
        </Button>
      )}
    </section>
  );
}
