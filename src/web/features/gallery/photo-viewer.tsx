import { ChevronLeft, ChevronRight, Gamepad2, SlidersHorizontal, X } from 'lucide-react';
import { useEffect, useId, useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';
import { Link } from 'wouter';
import { formatCountdown, formatSizeMb } from '@domain/format';
import { Dialog, DialogClose, DialogTitle } from '../../components/ui/dialog';
import { cn } from '../../lib/cn';
import { clampView, IDENTITY, panView, pinchView, viewTransform, type Point, type ZoomView } from './pinch-zoom';
import { PhotoImage } from './photo-image';
import { SimilarPhotos } from './similar-photos';
import { ViewerActions, ViewerManageActions } from './viewer-actions';
import type { Photo } from '@contract/photos';
import { countdownAnnouncement } from '../../lib/countdown-announcement';

/** The click-to-zoom scale: enough to read detail without losing the frame. */
export const VIEWER_ZOOM = 1.5;
/** Thumbnails rendered either side of the current photo: the strip stays small for any library size. */
const STRIP_RADIUS = 12;
const SWIPE_MIN_PX = 50;

export interface PhotoViewerProps {
  photos: Photo[];
  /**
   * What it says with no photo to show, when the caller knows better than 'No photos yet': the
   * list still loading, or not read at all (a lost connection, a limit).
   */
  emptyText?: string;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** Index shown when the viewer opens. */
  initialIndex?: number;
  /** Seconds left, shown as an m:ss badge when given (the ad overlay). */
  countdown?: number;
  /** The ad's full length: with `countdown`, a polite live region announces milestones. */
  countdownFrom?: number;
  /** Shows the 'Play Game' button when given. */
  onPlayGame?: () => void;
  /** Shows an 'Edit' link to the photo editor for the current photo (the gallery; not the ad overlay). */
  showEdit?: boolean;
  /** Shows 'Similar photos' for the current photo (the gallery). */
  showSimilar?: boolean;
  /** Shows Download and Delete (the gallery; not the ad overlay). */
  showManage?: boolean;
  /**
   * More photos follow `photos` (the gallery's pages not loaded yet): the viewer asks for them
   * with `loadMore` as it nears the end, and Next on the last one loaded waits for them instead of
   * wrapping to the first. Previous on the first photo does not wrap while more follow (see `go`).
   */
  hasMore?: boolean;
  loadMore?: () => void;
  /**
   * Why the photos after `photos` could not be loaded (the page refused), while no request for
   * them is on its way: said in place of 'Loading more photos...'; Next asks again.
   */
  loadError?: string;
  /** Told the id of each photo shown as the user moves on (the gallery's history entry keeps it). */
  onShow?: (photoId: string) => void;
  /** Runs as the viewer closes; preventDefault keeps focus from returning to the opener. */
  onCloseAutoFocus?: (event: Event) => void;
}

const wrap = (i: number, n: number) => (n === 0 ? 0 : ((i % n) + n) % n);

/** What the viewer's status says of the photo shown: its place among those listed (when known) and its name. */
function shownText(photo: Photo, at: number | null, n: number, hasMore: boolean): string {
  if (at === null) return photo.name;
  return `Photo ${at + 1}${hasMore ? '' : ` of ${n}`}: ${photo.name}`;
}

/**
 * The full-screen photo viewer (spec: Photo viewer overlay): title, close, optional countdown,
 * click-to-zoom 1.5x (the full photo loads on zoom, as a JPEG rendition when browsers cannot show the original; the ~1440 px preview before), arrows that wrap,
 * caption, thumbnail strip, optional Play Game, and share/favorite/info. Keyboard arrows and
 * swipes move between photos; Escape closes.
 */
export function PhotoViewer({
  photos,
  emptyText,
  open,
  onOpenChange,
  initialIndex = 0,
  countdown,
  countdownFrom,
  onPlayGame,
  showEdit = false,
  showSimilar = false,
  showManage = false,
  hasMore = false,
  loadMore,
  loadError,
  onShow,
  onCloseAutoFocus,
}: PhotoViewerProps) {
  const [index, setIndex] = useState(initialIndex);
  // The photo shown, followed by its id: the list can change under the viewer (an upload going on
  // in the background ends and puts its photos first, a refresh after a delete elsewhere), and by
  // index alone the viewer moved to another photo, under an open Delete confirmation too.
  const [shownId, setShownId] = useState<string | undefined>(undefined);
  // A similar photo chosen in 'Similar photos' (it may not be in `photos`), shown until the user moves on.
  const [similarShown, setSimilarShown] = useState<Photo | null>(null);
  // Tap (or Enter) toggles 1.5x; two fingers pinch about their midpoint; one finger pans while zoomed.
  const [view, setView] = useState<ZoomView>(IDENTITY);
  const zoomed = view.scale > 1;
  const setZoomed = (z: boolean | ((z: boolean) => boolean)) =>
    setView((v) => {
      const next = typeof z === 'function' ? z(v.scale > 1) : z;
      return next ? { scale: VIEWER_ZOOM, x: 0, y: 0 } : IDENTITY;
    });
  const stage = useRef<HTMLDivElement>(null);
  const pointers = useRef(new Map<number, Point>());
  const gesture = useRef<{ view: ZoomView; points: Point[] } | null>(null);
  const suppressClick = useRef(false);
  const [touching, setTouching] = useState(false);
  const swipeStart = useRef<{ x: number; y: number } | null>(null);
  const n = photos.length;
  const nameId = useId();
  const followed = shownId === undefined ? -1 : photos.findIndex((p) => p.id === shownId);
  // Where the followed photo is now; gone (deleted), the one that took its place.
  const at = followed >= 0 ? followed : wrap(index, n);
  const show = (i: number) => {
    setIndex(i);
    setShownId(photos[i]?.id);
  };

  useEffect(() => {
    if (open) {
      show(wrap(initialIndex, n));
      setSimilarShown(null);
      setZoomed(false);
    }
    // Only when (re)opened: later list changes must not move the user.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open, initialIndex]);

  // Next pressed on the last photo loaded while more are on their way: the number loaded then,
  // which is where the first of them will be.
  const [nextAt, setNextAt] = useState<number | null>(null);
  const current = similarShown ?? (n ? photos[at] : undefined);
  // Previous on the first photo wraps to the library's last, which is not loaded while more pages
  // follow: wrapping to the last one loaded would skip every photo after it. Loading the rest first
  // is unbounded (a Premium library has no limit, each page is a request from the user's page budget,
  // and the timeline has no oldest-first order to ask for the last page alone), so the wrap back
  // waits until everything is loaded, by Next or by scrolling the gallery; then the arrows wrap.
  const noWrapBack = hasMore && n > 0 && at === 0;
  const go = (delta: number) => {
    if (delta < 0 && noWrapBack) return;
    setSimilarShown(null);
    setZoomed(false);
    if (delta > 0 && hasMore && n > 0 && at === n - 1) {
      // The library goes on past what is loaded: wrapping to the first photo would hide the rest.
      setNextAt(n);
      loadMore?.();
      return;
    }
    setNextAt(null);
    show(wrap(at + delta, n));
  };
  useEffect(() => {
    if (nextAt === null) return;
    if (photos.length > nextAt) {
      setIndex(nextAt);
      setShownId(photos[nextAt]?.id);
      setNextAt(null);
    } else if (!hasMore) setNextAt(null);
  }, [photos, nextAt, hasMore]);
  // Next waits for a page that was refused: said (on screen too) until Next asks again.
  const refused = nextAt !== null && loadError !== undefined;
  const toldId = open ? current?.id : undefined;
  useEffect(() => {
    if (toldId !== undefined) onShow?.(toldId);
  }, [toldId, onShow]);
  // The photos after the loaded ones are asked for before the viewer reaches them: once as the
  // viewer comes near the end, and again as each page arrives. Not at every new `loadMore` (the
  // gallery makes one each time a request starts or ends): a refused page (the page budget's 429,
  // the network) was asked again the moment its refusal came, in a loop without end.
  const nearEnd = open && hasMore && n > 0 && at >= n - 1 - STRIP_RADIUS;
  const loadMoreNow = useRef(loadMore);
  loadMoreNow.current = loadMore;
  useEffect(() => {
    if (nearEnd) loadMoreNow.current?.();
  }, [nearEnd, n]);

  const onKeyDown = (e: KeyboardEvent) => {
    // React passes a portal's events up its component tree: arrows pressed in a dialog opened from
    // the viewer (Info, Download, the Delete confirmation) moved to another photo behind it, and
    // the confirmation then deleted that one. Only keys pressed in the viewer itself move it.
    if (!e.currentTarget.contains(e.target as Node)) return;
    if (e.key === 'ArrowRight') {
      e.preventDefault();
      go(1);
    } else if (e.key === 'ArrowLeft') {
      e.preventDefault();
      go(-1);
    }
  };
  /** Starts (or restarts) a pan or pinch from the pointers down now and the current view. */
  const beginGesture = (v: ZoomView) => {
    gesture.current = { view: v, points: [...pointers.current.values()] };
  };
  const onPointerDown = (e: PointerEvent) => {
    if (e.pointerType === 'mouse') return;
    pointers.current.set(e.pointerId, { x: e.clientX, y: e.clientY });
    setTouching(true);
    suppressClick.current = pointers.current.size > 1;
    swipeStart.current = pointers.current.size === 1 ? { x: e.clientX, y: e.clientY } : null;
    beginGesture(view);
  };
  const onPointerMove = (e: PointerEvent) => {
    if (!pointers.current.has(e.pointerId)) return;
    pointers.current.set(e.pointerId, { x: e.clientX, y: e.clientY });
    const g = gesture.current;
    const box = stage.current?.getBoundingClientRect();
    if (!g || !box) return;
    const now = [...pointers.current.values()];
    let next: ZoomView | null = null;
    if (now.length >= 2 && g.points.length >= 2) {
      const centre = { x: box.left + box.width / 2, y: box.top + box.height / 2 };
      next = pinchView(g.view, [g.points[0]!, g.points[1]!], [now[0]!, now[1]!], centre);
    } else if (now.length === 1 && g.points.length === 1 && g.view.scale > 1) {
      next = panView(g.view, now[0]!.x - g.points[0]!.x, now[0]!.y - g.points[0]!.y);
    }
    if (!next) return;
    if (Math.abs(next.x - view.x) + Math.abs(next.y - view.y) > 4 || next.scale !== view.scale) {
      suppressClick.current = true;
    }
    setView(clampView(next, box));
  };
  const onPointerEnd = (e: PointerEvent) => {
    if (!pointers.current.delete(e.pointerId)) return;
    const s = swipeStart.current;
    // The remaining finger (after a pinch) continues as a pan from the view reached so far.
    beginGesture(view);
    if (pointers.current.size > 0) return;
    setTouching(false);
    swipeStart.current = null;
    if (!s || zoomed || e.type === 'pointercancel') return;
    const dx = e.clientX - s.x;
    if (Math.abs(dx) >= SWIPE_MIN_PX && Math.abs(dx) > Math.abs(e.clientY - s.y)) go(dx < 0 ? 1 : -1);
  };

  const strip: number[] = [];
  if (n) {
    const from = n <= STRIP_RADIUS * 2 + 1 ? 0 : Math.max(0, Math.min(at - STRIP_RADIUS, n - (STRIP_RADIUS * 2 + 1)));
    for (let i = from; i < Math.min(n, from + STRIP_RADIUS * 2 + 1); i++) strip.push(i);
  }

  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      layer="overlay"
      look="screen"
      onKeyDown={onKeyDown}
      onCloseAutoFocus={onCloseAutoFocus}
      aria-describedby={undefined}
    >
      <header className="flex items-center justify-between gap-2 px-3 pt-3 pb-2">
        <DialogTitle className="text-lg font-semibold">Your Photos</DialogTitle>
        <div className="flex items-center gap-2">
          {countdown !== undefined && (
            <span
              className="rounded-full bg-white/15 px-3 py-1 font-mono text-sm tabular-nums"
              data-testid="viewer-countdown"
            >
              <span className="sr-only">Ad ends in </span>
              {formatCountdown(countdown)}
            </span>
          )}
          {countdown !== undefined && countdownFrom !== undefined && (
            <span role="status" aria-live="polite" className="sr-only" data-testid="viewer-countdown-announcer">
              {countdownAnnouncement(countdown, countdownFrom)}
            </span>
          )}
          {showManage && current && (
            <ViewerManageActions
              photo={current}
              onDeleted={() => {
                // The next photo takes the deleted one's place; the last one deleted closes the viewer.
                if (n <= 1) onOpenChange(false);
                else show(at === n - 1 ? n - 2 : at + 1);
                setZoomed(false);
              }}
            />
          )}
          <DialogClose
            aria-label="Close"
            className="grid size-11 place-items-center rounded-full hover:bg-white/10 focus-visible:outline-2 focus-visible:outline-white"
          >
            <X className="size-6" aria-hidden />
          </DialogClose>
        </div>
      </header>

      <div
        ref={stage}
        data-testid="viewer-stage"
        className="relative flex min-h-0 flex-1 touch-none items-center justify-center overflow-hidden select-none"
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerEnd}
        onPointerCancel={onPointerEnd}
      >
        {current ? (
          <button
            type="button"
            onClick={() => {
              // A pinch or pan ends with a click on touch screens: it must not toggle the zoom.
              if (suppressClick.current) {
                suppressClick.current = false;
                return;
              }
              setZoomed((z) => !z);
            }}
            aria-label={zoomed ? 'Zoom out' : 'Zoom in'}
            aria-describedby={nameId}
            aria-pressed={zoomed}
            className={cn('size-full', zoomed ? 'cursor-zoom-out' : 'cursor-zoom-in')}
          >
            <PhotoImage
              key={current.id}
              src={zoomed ? (current.displayUrl ?? current.url) : current.previewUrl}
              alt={current.name}
              thumbhash={current.thumbhash}
              draggable={false}
              data-testid="viewer-image"
              data-zoomed={zoomed}
              className="size-full bg-transparent !bg-contain !bg-no-repeat"
              imgClassName={cn('object-contain', !touching && 'transition-transform duration-200')}
              style={{ transform: viewTransform(view) }}
            />
          </button>
        ) : (
          <p className="text-white/70" role={emptyText ? 'status' : undefined}>
            {emptyText ?? 'No photos yet'}
          </p>
        )}
        {/* The photo is behind a button named for its zoom, and the arrows keep focus: without this a
            screen reader said nothing as the user moved from photo to photo. */}
        <p
          role="status"
          className={
            refused
              ? 'absolute inset-x-4 bottom-3 rounded-xl bg-black/75 p-3 text-center text-sm text-white'
              : 'sr-only'
          }
        >
          {refused
            ? `${loadError} Press Next to try again.`
            : nextAt !== null
              ? 'Loading more photos...'
              : current
                ? shownText(current, similarShown ? null : at, n, hasMore)
                : ''}
        </p>
        {n > 1 && (
          <>
            <button
              type="button"
              aria-label="Previous photo"
              // Not `disabled`: Chrome would move focus off it to the page.
              aria-disabled={noWrapBack || undefined}
              onClick={() => go(-1)}
              className={cn(
                'absolute top-1/2 left-2 grid size-11 -translate-y-1/2 place-items-center rounded-full bg-black/50',
                noWrapBack ? 'cursor-not-allowed opacity-40' : 'hover:bg-black/70',
              )}
            >
              <ChevronLeft className="size-6" aria-hidden />
            </button>
            <button
              type="button"
              aria-label="Next photo"
              onClick={() => go(1)}
              className="absolute top-1/2 right-2 grid size-11 -translate-y-1/2 place-items-center rounded-full bg-black/50 hover:bg-black/70"
            >
              <ChevronRight className="size-6" aria-hidden />
            </button>
          </>
        )}
      </div>

      {current && (
        // The actions take ~230 px: beside them a phone had ~100 px for the name ('Astro...'), so the
        // name and date take a row of their own when less than 12rem is left for them.
        <div
          className="flex flex-wrap items-start justify-between gap-x-3 gap-y-1 px-4 pt-3"
          data-testid="viewer-caption"
        >
          <div className="min-w-0 flex-[1_1_12rem]">
            <p id={nameId} className="truncate font-semibold">
              {current.name}
            </p>
            <p className="text-sm text-white/70">
              {new Date(current.uploadedAt).toLocaleDateString()} • {formatSizeMb(current.size)}
            </p>
          </div>
          <div className="ml-auto flex shrink-0">
            {showEdit && (
              <Link
                href={`/photo-editor?photoId=${encodeURIComponent(current.id)}`}
                className="flex min-h-11 items-center gap-1 rounded-full px-3 text-sm font-semibold hover:bg-white/10"
              >
                <SlidersHorizontal className="size-5" aria-hidden />
                Edit
              </Link>
            )}
            <ViewerActions photo={current} />
          </div>
        </div>
      )}

      {showSimilar && current && (
        <SimilarPhotos
          photoId={current.id}
          onShow={(p) => {
            setSimilarShown(p);
            setZoomed(false);
          }}
        />
      )}

      {onPlayGame && (
        <div className="px-4 pt-3">
          <button
            type="button"
            onClick={onPlayGame}
            className="flex min-h-11 w-full items-center justify-center gap-2 rounded-xl bg-primary font-semibold text-primary-fg"
          >
            <Gamepad2 className="size-5" aria-hidden />
            Play Game
          </button>
        </div>
      )}

      <ul className="flex gap-2 overflow-x-auto px-4 py-3" aria-label="Thumbnails">
        {strip.map((i) => {
          const p = photos[i]!;
          return (
            <li key={p.id} className="shrink-0">
              <button
                type="button"
                onClick={() => {
                  setSimilarShown(null);
                  setNextAt(null);
                  show(i);
                  setZoomed(false);
                }}
                aria-label={`Show ${p.name}`}
                aria-current={i === at ? 'true' : undefined}
                className={cn(
                  'block size-14 overflow-hidden rounded-lg border-2',
                  i === at ? 'border-white' : 'border-transparent opacity-70',
                )}
              >
                <PhotoImage
                  src={p.thumbnailUrl}
                  alt=""
                  thumbhash={p.thumbhash}
                  className="size-full"
                  imgClassName="object-cover"
                />
              </button>
            </li>
          );
        })}
      </ul>
    </Dialog>
  );
}
