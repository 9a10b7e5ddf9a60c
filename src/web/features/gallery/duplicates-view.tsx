import { useQuery } from '@tanstack/react-query';
import { ArrowLeft } from 'lucide-react';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Link } from 'wouter';
import { LoadFailed, RefreshFailed, useRetryRefresh } from '../../components/ui/refresh-failed';
import { PhotoGrid, SkeletonTile } from './photo-grid';
import { PhotoViewer } from './lazy-dialogs';
import { duplicatesQueryOptions } from './photos-query';
import {
  forgetViewerEntry,
  leaveViewerEntry,
  pushViewerEntry,
  showInViewerEntry,
  viewerEntryPhoto,
  useCloseViewerOnBack,
} from './viewer-history';

const noop = () => undefined;

/**
 * The "Possible duplicates" smart album in the gallery grid (`/gallery?album=duplicates`): each
 * group of near-identical photos side by side, largest group first.
 */
export function DuplicatesView() {
  const query = useQuery(duplicatesQueryOptions());
  const [viewerIndex, setViewerIndex] = useState<number | null>(null);
  const dropViewer = useCallback(() => setViewerIndex(null), []);
  const photos = useMemo(() => query.data?.groups.flat() ?? [], [query.data]);
  const groups = query.data?.groups.length ?? 0;
  // The viewer is an entry of the browser's history, as in the gallery: a phone's Back closes it
  // instead of leaving the album, and Back from the photo editor (its Edit) opens it again.
  const photosNow = useRef(photos);
  photosNow.current = photos;
  const openViewer = useCallback((index: number) => {
    pushViewerEntry(photosNow.current[index]?.id);
    setViewerIndex(index);
  }, []);
  const viewerOpen = viewerIndex !== null;
  useCloseViewerOnBack(viewerOpen, dropViewer);
  // Try again, once answered, puts focus on the album's title.
  const title = useRef<HTMLHeadingElement>(null);
  const retry = useRetryRefresh(query, title);
  const reopen = useRef(viewerEntryPhoto());
  useEffect(() => {
    const id = reopen.current;
    if (id === null || query.isPending) return;
    reopen.current = null;
    const index = photos.findIndex((p) => p.id === id);
    if (index < 0) return forgetViewerEntry();
    setViewerIndex(index);
  }, [photos, query.isPending]);
  return (
    <section className="flex flex-col gap-3" aria-labelledby="duplicates-title">
      <div className="flex items-center justify-between gap-2">
        <div>
          <h2 id="duplicates-title" ref={title} tabIndex={-1} className="text-lg font-semibold">
            Possible duplicates
          </h2>
          {query.data && (
            <p className="text-sm text-muted" role="status">
              {groups === 0
                ? 'No near-identical photos found'
                : `${photos.length} photos in ${groups} ${groups === 1 ? 'group' : 'groups'}`}
            </p>
          )}
        </div>
        <Link href="/gallery" className="inline-flex min-h-11 items-center gap-1 text-sm font-semibold text-primary">
          <ArrowLeft className="size-4" aria-hidden />
          All photos
        </Link>
      </div>
      {query.isPending ? (
        <div className="grid grid-cols-2 gap-3" aria-busy="true" aria-label="Loading photos">
          {Array.from({ length: 4 }, (_, i) => (
            <SkeletonTile key={i} />
          ))}
        </div>
      ) : !query.data ? (
        // With Try again: leaving the album and coming back was the only way to ask again.
        <LoadFailed query={query} fallback="Could not look for duplicates." target={title} />
      ) : (
        photos.length > 0 && (
          <PhotoGrid photos={photos} total={photos.length} hasMore={false} loadMore={noop} onOpen={openViewer} />
        )
      )}
      {/* A refresh refused (a photo deleted, the per-user limit) keeps the groups shown, and says
          why they may be behind: the alert in their place hid the photos under their count. */}
      {query.isError && query.data && <RefreshFailed query={query} what="this album" onRetry={retry} />}
      <PhotoViewer
        photos={photos}
        open={viewerIndex !== null}
        initialIndex={viewerIndex ?? 0}
        onOpenChange={(o) => {
          if (o) return;
          setViewerIndex(null);
          leaveViewerEntry();
        }}
        onShow={showInViewerEntry}
        showEdit
        showSimilar
      />
    </section>
  );
}
