import { useWindowVirtualizer } from '@tanstack/react-virtual';
import { Check, Heart } from 'lucide-react';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { timelineDate, timelineRows } from '@domain/find';
import { formatSizeMb } from '@domain/format';
import { pictureSrc } from '../../app/first-paint';
import { cn } from '../../lib/cn';
import { PhotoImage } from './photo-image';
import type { Photo } from '@contract/photos';

const COLUMNS = 2;
const GAP = 12;
/** Name and size under the square image. */
const CAPTION_HEIGHT = 52;
/** A month header row ('March 2024') of the timeline. */
const HEADER_HEIGHT = 40;
/** Tiles on a phone's first screen (two rows): their thumbnails load first (the largest paint). */
const FIRST_SCREEN_TILES = 2 * COLUMNS;

export function SkeletonTile() {
  return (
    <div className="flex flex-col gap-2" data-testid="photo-skeleton" aria-hidden>
      <div className="aspect-square animate-pulse rounded-xl bg-surface-2" />
      <div className="h-4 w-3/4 animate-pulse rounded bg-surface-2" />
      <div className="h-3 w-1/3 animate-pulse rounded bg-surface-2" />
    </div>
  );
}

/** Selecting photos: while `active`, a tap toggles a photo instead of opening it; a long press starts it. */
export interface GridSelection {
  active: boolean;
  selected: ReadonlySet<string>;
  toggle: (id: string) => void;
  /** A long press (touch) on a tile: starts selecting with that photo. */
  start: (id: string) => void;
}

/** How long a finger rests on a tile before it counts as a long press. */
export const LONG_PRESS_MS = 500;
const LONG_PRESS_SLOP_PX = 10;

function Tile({
  photo,
  index,
  onOpen,
  selection,
}: {
  photo: Photo;
  index: number;
  onOpen: (i: number) => void;
  selection?: GridSelection;
}) {
  const press = useRef<{ timer: ReturnType<typeof setTimeout>; x: number; y: number } | null>(null);
  const longPressed = useRef(false);
  const cancelPress = () => {
    if (press.current) clearTimeout(press.current.timer);
    press.current = null;
  };
  useEffect(() => cancelPress, []);
  const selecting = !!selection?.active;
  const selected = !!selection?.selected.has(photo.id);
  return (
    <button
      type="button"
      onClick={() => {
        // The click that ends a long press must not toggle the photo it just selected.
        if (longPressed.current) {
          longPressed.current = false;
          return;
        }
        if (selecting) selection.toggle(photo.id);
        else onOpen(index);
      }}
      onPointerDown={(e) => {
        longPressed.current = false;
        if (e.pointerType !== 'touch' || !selection) return;
        const x = e.clientX;
        const y = e.clientY;
        cancelPress();
        press.current = {
          x,
          y,
          timer: setTimeout(() => {
            press.current = null;
            longPressed.current = true;
            if (selection.active) selection.toggle(photo.id);
            else selection.start(photo.id);
          }, LONG_PRESS_MS),
        };
      }}
      onPointerMove={(e) => {
        const p = press.current;
        if (p && Math.hypot(e.clientX - p.x, e.clientY - p.y) > LONG_PRESS_SLOP_PX) cancelPress();
      }}
      onPointerUp={cancelPress}
      onPointerCancel={cancelPress}
      onContextMenu={(e) => {
        // A long press on a phone also opens the browser's image menu: selecting is what it means here.
        if (selection && (press.current || longPressed.current)) e.preventDefault();
      }}
      className={cn(
        'flex min-w-0 flex-col gap-1 text-left [-webkit-touch-callout:none] focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-primary',
      )}
      aria-label={selecting ? `Select ${photo.name}` : `Open ${photo.name}`}
      aria-pressed={selecting ? selected : undefined}
      data-testid="photo-tile"
      data-photo-id={photo.id}
    >
      <div className="relative w-full">
        <PhotoImage
          src={pictureSrc(photo.thumbnailUrl)}
          alt={photo.name}
          thumbhash={photo.thumbhash}
          loading="lazy"
          priority={index < FIRST_SCREEN_TILES}
          draggable={false}
          className={cn('aspect-square w-full rounded-xl transition-transform', selected && 'scale-[0.92]')}
          imgClassName="object-cover"
        />
        {selecting && (
          // A white ring alone vanished on a white photo: a dark outline around it keeps the circle
          // at 3:1 or more against any photo (the white against dark ones, the dark against light).
          <span
            aria-hidden
            data-testid="select-circle"
            className={cn(
              'absolute top-2 left-2 grid size-6 place-items-center rounded-full border-2 border-white shadow-[0_0_0_1.5px_rgb(0_0_0/0.65)]',
              selected ? 'bg-primary text-primary-fg' : 'bg-black/30',
            )}
          >
            {selected && <Check className="size-4" />}
          </span>
        )}
        {photo.favorite && !selecting && (
          <Heart aria-hidden className="absolute right-2 bottom-2 size-5 fill-white text-white drop-shadow" />
        )}
      </div>
      <span className="truncate text-sm font-medium">{photo.name}</span>
      <span className="text-xs text-muted">{formatSizeMb(photo.size)}</span>
    </button>
  );
}

/**
 * The 2-column gallery grid, virtualised against the window: only the rows near the viewport are
 * in the DOM (a few dozen tiles whatever the library size). `total` sizes the scroll range up
 * front; rows beyond the loaded pages show skeletons and ask for the next page. With `months`,
 * a header row opens each month of the loaded photos (timeline order, by date taken).
 */
export function PhotoGrid({
  photos,
  total,
  hasMore,
  loadMore,
  onOpen,
  months = false,
  selection,
}: {
  photos: Photo[];
  total: number;
  hasMore: boolean;
  loadMore: () => void;
  onOpen: (index: number) => void;
  months?: boolean;
  selection?: GridSelection;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(398);
  const [offset, setOffset] = useState(0);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () => {
      setWidth(el.clientWidth || 398);
      setOffset(el.getBoundingClientRect().top + window.scrollY);
    };
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  const count = Math.max(photos.length, hasMore ? total : photos.length);
  const layout = useMemo(
    () =>
      months
        ? timelineRows(photos.map(timelineDate), COLUMNS, count - photos.length)
        : timelineRows([], COLUMNS, count),
    [months, photos, count],
  );
  const tile = (width - GAP) / COLUMNS;
  const rowHeight = Math.round(tile + CAPTION_HEIGHT + GAP);
  const virtualizer = useWindowVirtualizer({
    count: layout.length,
    estimateSize: (i) => (layout[i]?.kind === 'header' ? HEADER_HEIGHT : rowHeight),
    overscan: 4,
    scrollMargin: offset,
  });
  useEffect(() => virtualizer.measure(), [rowHeight, layout, virtualizer]);

  const items = virtualizer.getVirtualItems();
  const lastTile = items.reduce((m, it) => {
    const row = layout[it.index];
    return row?.kind === 'tiles' ? Math.max(m, row.end) : m;
  }, 0);
  const needMore = hasMore && lastTile > photos.length - COLUMNS * 4;
  useEffect(() => {
    if (needMore) loadMore();
  }, [needMore, loadMore, photos.length]);

  return (
    <div ref={ref} style={{ height: virtualizer.getTotalSize(), position: 'relative' }} data-testid="photo-grid">
      {items.map((item) => {
        const row = layout[item.index]!;
        const y = item.start - virtualizer.options.scrollMargin;
        if (row.kind === 'header') {
          return (
            <h2
              key={item.key}
              className="absolute inset-x-0 top-0 flex items-end pb-2 text-base font-semibold"
              style={{ height: HEADER_HEIGHT, transform: `translateY(${y}px)` }}
              data-testid="month-header"
            >
              {row.label}
            </h2>
          );
        }
        return (
          <div
            key={item.key}
            className="absolute inset-x-0 top-0 grid grid-cols-2"
            style={{ height: rowHeight - GAP, columnGap: GAP, transform: `translateY(${y}px)` }}
          >
            {Array.from({ length: COLUMNS }, (_, c) => {
              const i = row.start + c;
              if (i >= row.end) return <div key={c} />;
              const p = photos[i];
              return p ? (
                <Tile key={p.id} photo={p} index={i} onOpen={onOpen} selection={selection} />
              ) : (
                <SkeletonTile key={`s${i}`} />
              );
            })}
          </div>
        );
      })}
    </div>
  );
}
