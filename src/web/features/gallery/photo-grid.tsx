import { useWindowVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { timelineDate, timelineRows } from '@domain/find';
import { formatSizeMb } from '@domain/format';
import { PhotoImage } from './photo-image';
import type { Photo } from '@contract/photos';

const COLUMNS = 2;
const GAP = 12;
/** Name and size under the square image. */
const CAPTION_HEIGHT = 52;
/** A month header row ('March 2024') of the timeline. */
const HEADER_HEIGHT = 40;

export function SkeletonTile() {
  return (
    <div className="flex flex-col gap-2" data-testid="photo-skeleton" aria-hidden>
      <div className="aspect-square animate-pulse rounded-xl bg-surface-2" />
      <div className="h-4 w-3/4 animate-pulse rounded bg-surface-2" />
      <div className="h-3 w-1/3 animate-pulse rounded bg-surface-2" />
    </div>
  );
}

function Tile({ photo, index, onOpen }: { photo: Photo; index: number; onOpen: (i: number) => void }) {
  return (
    <button
      type="button"
      onClick={() => onOpen(index)}
      className="flex min-w-0 flex-col gap-1 text-left focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-primary"
      aria-label={`Open ${photo.name}`}
      data-testid="photo-tile"
    >
      <PhotoImage
        src={photo.thumbnailUrl}
        alt={photo.name}
        thumbhash={photo.thumbhash}
        loading="lazy"
        className="aspect-square w-full rounded-xl"
        imgClassName="object-cover"
      />
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
}: {
  photos: Photo[];
  total: number;
  hasMore: boolean;
  loadMore: () => void;
  onOpen: (index: number) => void;
  months?: boolean;
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
              return p ? <Tile key={p.id} photo={p} index={i} onOpen={onOpen} /> : <SkeletonTile key={`s${i}`} />;
            })}
          </div>
        );
      })}
    </div>
  );
}
