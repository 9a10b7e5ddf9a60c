import type { CreateActivityResponse } from '@contract/activities';
import type { PlayableGameType } from '@domain/games/scoring';
import { formatCountdown } from '@domain/format';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Images } from 'lucide-react';
import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { toast } from '../../lib/toast';
import { Button } from '../../components/ui/button';
import { ProgressBar } from '../../components/ui/progress-bar';
import { errorCode, errorMessage, errorStatus } from '../../lib/api';
import { countdownAnnouncement } from '../../lib/countdown-announcement';
import { useModalLayer } from '../../lib/use-modal-layer';
import { useSettlingPresses } from '../../lib/settling-presses';
import { PhotoViewer, photosQueryOptions } from '../gallery';
import { activitiesQueryOptions, announceActivity, rewardsQueryOptions, statsQueryOptions } from '../rewards';
import { AD_STILL_PLAYING_CODE } from '@contract/ad-breaks';
import { MiniGameDialog, type MiniGameOutcome } from './mini-game-dialog';
import { adBreakActivity, betterOutcome, recordAdBreak } from './record-ad-break';

/**
 * A recording refused for a passing reason: the network (lost while the browser believes it is
 * online), the server (a 5xx while it restarts), the per-user limit, or an ad the server still
 * sees playing (the device clock moved forward during the ad). The break stays recordable for 10
 * minutes after its ad, once per ad-break id, so asking again is safe; the server decides the
 * points. Other refusals (superseded, expired, the plan, an impossible score) are final.
 */
function mayRecordLater(err: unknown): boolean {
  const status = errorStatus(err);
  return status === undefined || status >= 500 || status === 429 || errorCode(err) === AD_STILL_PLAYING_CODE;
}

/** The recording's request failed for a passing reason (only the request's own errors count). */
class PassingFailure extends Error {}

export interface AdOverlayProps {
  app: string;
  /** Seconds. */
  duration: number;
  /** Called when the ad break is over and recorded (or failed to record). */
  onClose: () => void;
  /** Shows the skip reward; defaults to the app's reward popup ('Ad skipped! +N pts', 2.5 s). */
  onReward?: (response: CreateActivityResponse) => void;
  /** The id of the ad break the server started (`POST /api/ad-breaks`); it records it once. */
  adBreakId: string;
}

/**
 * The simulated ad overlay: the ad panel behind, the user's photos on top with an m:ss
 * countdown, and the mini-game dialog from Play Game. Mounted once the server started the ad break,
 * so its 0 comes after the server's end of the ad. At 0 the break is recorded once
 * (`POST /api/activities`, the ad-break id as Idempotency-Key), the skip reward shown, stats and activities
 * refreshed, and the overlay closes. A game still in play at 0 is waited for (its time limit is
 * capped by the ad's remaining time, so it ends within about a second).
 */
export function AdOverlay({ app, duration, onClose, onReward = announceActivity, adBreakId }: AdOverlayProps) {
  const qc = useQueryClient();
  // The ad plays on while the page is hidden, and a phone may freeze the page's timers meanwhile:
  // seconds left are read from the clock against the ad's end (from when the server's answer
  // arrived, so never before the server's own end), not counted down tick by tick.
  const [endsAt] = useState(() => Date.now() + duration * 1000);
  const [now, setNow] = useState(() => Date.now());
  const remaining = Math.max(0, Math.ceil((endsAt - now) / 1000));
  const [galleryOpen, setGalleryOpen] = useState(true);
  const [gameOpen, setGameOpen] = useState(false);
  const photos = useQuery(photosQueryOptions());
  const [gameInPlay, setGameInPlay] = useState(false);
  const outcome = useRef<MiniGameOutcome | null>(null);
  const backToPhotos = useRef<HTMLButtonElement>(null);
  const layer = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const finished = useRef(false);
  // Why the last recording failed, while asking again may still pay the break; `n` counts the
  // failures, so the same words refused again are read out again.
  const [failure, setFailure] = useState<{ message: string; n: number } | null>(null);
  const tryAgainButton = useRef<HTMLButtonElement>(null);
  // Once per overlay. Closed while a Try again was on its way, the answer (up to RECORD_WAIT_MS
  // later, or once an offline device is back) closed again: by then the user had started the next
  // ad break, whose overlay vanished mid-ad and whose recording was never sent.
  const closed = useRef(false);
  const close = () => {
    if (closed.current) return;
    closed.current = true;
    onClose();
  };
  useModalLayer(layer);

  // Once per second from the ad duration to 0: the next tick is due when the shown second changes
  // (a timer that fires early only re-arms), and a page shown again catches up at once.
  useEffect(() => {
    if (remaining <= 0) return;
    const due = endsAt - (remaining - 1) * 1000;
    const id = setTimeout(() => setNow(Date.now()), Math.max(0, due - Date.now()));
    return () => clearTimeout(id);
  }, [remaining, now, endsAt]);
  useEffect(() => {
    const onShow = () => {
      if (document.visibilityState === 'visible') setNow(Date.now());
    };
    document.addEventListener('visibilitychange', onShow);
    return () => document.removeEventListener('visibilitychange', onShow);
  }, []);

  const record = useMutation({
    // Held offline until the connection is back (the panel says so): the ad has run and its points
    // are owed, and the ad-break id keeps a late recording counted once.
    networkMode: 'online',
    mutationFn: () =>
      recordAdBreak(adBreakActivity(app, duration, outcome.current), adBreakId).catch((err: unknown) => {
        throw mayRecordLater(err) ? new PassingFailure(errorMessage(err, 'Failed to record activity')) : err;
      }),
    onSuccess: async (response) => {
      onReward(response);
      await Promise.all([
        qc.invalidateQueries({ queryKey: statsQueryOptions().queryKey }),
        qc.invalidateQueries({ queryKey: activitiesQueryOptions().queryKey }),
        qc.invalidateQueries({ queryKey: rewardsQueryOptions().queryKey }),
      ]);
    },
    onError: (err) => {
      // Closed on every refusal, a break the user had earned was lost to a dropped connection or a
      // restarting server, with a toast saying 'Please try again' and nothing left to try.
      if (err instanceof PassingFailure) setFailure((f) => ({ message: err.message, n: (f?.n ?? 0) + 1 }));
      else
        toast({ title: 'Error', description: errorMessage(err, 'Failed to record activity'), variant: 'destructive' });
      // An answer given up on may still have been recorded: its points show once it has.
      void qc.invalidateQueries({ queryKey: statsQueryOptions().queryKey });
      void qc.invalidateQueries({ queryKey: activitiesQueryOptions().queryKey });
      void qc.invalidateQueries({ queryKey: rewardsQueryOptions().queryKey });
    },
    onSettled: (_response, err) => {
      if (!(err instanceof PassingFailure)) close();
    },
  });
  const { mutate } = record;

  useEffect(() => {
    if (remaining > 0 || gameInPlay || finished.current) return;
    finished.current = true;
    setGameOpen(false);
    setGalleryOpen(false);
    mutate();
  }, [remaining, gameInPlay, mutate]);

  useEffect(() => {
    if (failure) tryAgainButton.current?.focus();
  }, [failure]);

  const onFinish = useCallback((result: MiniGameOutcome) => {
    outcome.current = betterOutcome(outcome.current, result);
    setGameInPlay(false);
  }, []);

  const openGame = () => setGameOpen(true);
  // Skip Game and Continue Browsing close the game over the viewer: the second click of a double
  // click on them must not zoom the photo or pick a thumbnail there.
  const settleViewer = useSettlingPresses(gameOpen, { atMount: false });

  const elapsed = Math.round(((duration - remaining) / duration) * 100);

  return (
    <div
      ref={layer}
      role="dialog"
      aria-modal="true"
      aria-labelledby={titleId}
      tabIndex={-1}
      className="fixed inset-0 z-overlay mx-auto flex max-w-[430px] flex-col bg-black text-white outline-none"
      data-testid="ad-overlay"
    >
      <div className="flex flex-col gap-2 p-4">
        <div className="flex items-center justify-between text-sm">
          <span id={titleId} className="font-semibold">
            Sample Advertisement
          </span>
          <span className="opacity-80">{app}</span>
        </div>
        <ProgressBar value={elapsed} label="Ad progress" look="ad" />
        <p className="text-xs opacity-80">Ad continues playing behind gallery</p>
        {/* The viewer announces while it is open (a modal hides the rest); this one otherwise. Offline
            at 0 the recording waits for the connection (the server counts a break up to 10 minutes
            after its ad, once per ad-break id), so the panel says why it stays; so does a Try again
            pressed offline (the refusal it answers is then no longer the news). Kept in the page
            beside a refusal, so that its next words are read. */}
        {!galleryOpen && !gameOpen && (
          <p role="status" aria-live="polite" className={record.isPaused ? 'text-sm' : 'sr-only'}>
            {record.isPaused
              ? 'Ad finished. Waiting for the connection to record this ad break.'
              : failure
                ? ''
                : countdownAnnouncement(remaining, duration)}
          </p>
        )}
        <div className="grid flex-1 place-items-center rounded-2xl bg-gradient-to-br from-primary to-warning/60 p-6 text-center">
          <div className="flex flex-col items-center gap-3">
            <p className="text-2xl font-bold">{app}</p>
            {/* Words for screen readers inside the text: an aria-label on a plain element is not
                allowed by ARIA, and some screen readers read only the bare '0:15'. */}
            <p className="font-mono text-lg tabular-nums">
              <span className="sr-only">Ad ends in </span>
              {formatCountdown(remaining)}
            </p>
            {failure && (
              <div className="flex flex-col items-center gap-3">
                {!record.isPaused && (
                  <p key={failure.n} role="alert" className="text-sm">
                    Could not record this ad break. {failure.message}
                  </p>
                )}
                <div className="flex gap-3">
                  <Button
                    ref={tryAgainButton}
                    pending={record.isPending}
                    onClick={() => mutate()}
                    className="text-primary-fg"
                  >
                    Try again
                  </Button>
                  <Button variant="outline" onClick={close} className="text-fg">
                    Close
                  </Button>
                </div>
              </div>
            )}
            {remaining > 0 && !galleryOpen && (
              <Button ref={backToPhotos} variant="outline" onClick={() => setGalleryOpen(true)} className="text-fg">
                <Images className="size-4" aria-hidden />
                Back to Photos
              </Button>
            )}
          </div>
        </div>
      </div>

      {/* React passes the viewer's (portalled) clicks up through this wrapper. */}
      <div className="contents" onClickCapture={settleViewer}>
        <PhotoViewer
          photos={photos.data ?? []}
          emptyText={
            photos.isPending
              ? 'Loading photos...'
              : photos.isError
                ? errorMessage(photos.error, 'Could not load your photos.')
                : undefined
          }
          open={galleryOpen}
          onOpenChange={setGalleryOpen}
          countdown={remaining}
          countdownFrom={duration}
          // Closed mid-ad, the viewer leaves the ad panel on screen: focus goes to its Back to Photos,
          // not to the control that started the ad, which the overlay covers (and makes inert). Closed
          // by the ad's end, to the panel while the break is recorded (to Try again if that failed
          // already); the control gets it back after.
          onCloseAutoFocus={(event) => {
            const target =
              tryAgainButton.current ?? backToPhotos.current ?? (layer.current?.isConnected ? layer.current : null);
            if (!target) return;
            event.preventDefault();
            target.focus();
          }}
          onPlayGame={record.isPending || remaining <= 0 ? undefined : openGame}
        />
      </div>

      <MiniGameDialog
        open={gameOpen}
        onOpenChange={setGameOpen}
        app={app}
        adDuration={duration}
        // No game outlasts the ad, however long the player took to start it (the ad break waits
        // for a game in play, and the server counts a break only up to 10 minutes after its ad).
        endsAt={endsAt}
        onGameStart={(_game: PlayableGameType) => setGameInPlay(true)}
        onFinish={onFinish}
      />
    </div>
  );
}
