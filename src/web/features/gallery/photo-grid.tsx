import { useWindowVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { formatSizeMb } from '@domain/format';
import { PhotoImage } from './photo-image';
import type { Photo } from '@contract/photos';

const COLUMNS = 2;
const GAP = 12;
/** Name and size under the square image. */
const CAPTION_HEIGHT = 52;

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
 * front; rows beyond the loaded pages show skeletons and ask for the next page.
 */
export function PhotoGrid({
  photos,
  total,
  hasMore,
  loadMore,
  onOpen,
}: {
  photos: Photo[];
  total: number;
  hasMore: boolean;
  loadMore: () => void;
  onOpen: (index: number) => void;
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
  const rows = Math.ceil(count / COLUMNS);
  const tile = (width - GAP) / COLUMNS;
  const rowHeight = Math.round(tile + CAPTION_HEIGHT + GAP);
  const virtualizer = useWindowVirtualizer({
    count: rows,
    estimateSize: () => rowHeight,
    overscan: 4,
    scrollMargin: offset,
  });
  useEffect(() => virtualizer.measure(), [rowHeight, virtualizer]);

  const items = virtualizer.getVirtualItems();
  const lastRow = items.length ? items[items.length - 1]!.index : 0;
  const needMore = hasMore && (lastRow + 1) * COLUMNS > photos.length - COLUMNS * 4;
  useEffect(() => {
    if (needMore) loadMore();
  }, [needMore, loadMore, photos.length]);

  return (
    <div ref={ref} style={{ height: virtualizer.getTotalSize(), position: 'relative' }} data-testid="photo-grid">
      {items.map((row) => (
        <div
          key={row.key}
          className="absolute inset-x-0 top-0 grid grid-cols-2"
          style={{
            height: rowHeight - GAP,
            columnGap: GAP,
            transform: `translateY(${row.start - virtualizer.options.scrollMargin}px)`,
          }}
        >
          {Array.from({ length: COLUMNS }, (_, c) => {
            const i = row.index * COLUMNS + c;
            if (i >= count) return <div key={c} />;
            const p = photos[i];
            return p ? <Tile key={p.id} photo={p} index={i} onOpen={onOpen} /> : <SkeletonTile key={`s${i}`} />;
          })}
        </div>
      ))}
    </div>
  );
}
