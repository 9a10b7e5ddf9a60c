import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { CheckSquare, Heart, ImagePlus, Images, Upload } from 'lucide-react';
import { useCallback, useDeferredValue, useEffect, useMemo, useRef, useState } from 'react';
import { useLocation, useSearch } from 'wouter';
import { PageHeader } from '../../components/ui/page-header';
import { ProgressBar } from '../../components/ui/progress-bar';
import { forgetFirstPaint, usePaintedContent } from '../../app/first-paint';
import { errorMessage } from '../../lib/api';
import { cn } from '../../lib/cn';
import { favoritePagesQueryOptions } from './manage-photos';
import { PhotoGrid, SkeletonTile } from './photo-grid';
import { PhotoViewer } from './lazy-dialogs';
import { DuplicatesView } from './duplicates-view';
import { photoSummaryQueryOptions, timelinePagesQueryOptions } from './photos-query';
import { SearchField } from './search-field';
import { SelectBar } from './select-bar';
import { useSelection } from './use-selection';
import { ViewSwitch, type GalleryView } from './view-switch';
import { useUploadPhotos } from './upload-photos';
import {
  forgetViewerEntry,
  leaveViewerEntry,
  pushViewerEntry,
  showInViewerEntry,
  viewerEntryPhoto,
  useCloseViewerOnBack,
} from './viewer-history';

/**
 * The uploads' progress bars, and a polite status that says once that an upload began (a bar's
 * value is read only when it is reached; the outcome is the toast's).
 */
function UploadBars({ uploads }: { uploads: ReturnType<typeof useUploadPhotos>['uploads'] }) {
  const newest = uploads.at(-1);
  return (
    <>
      <p role="status" className="sr-only">
        {newest ? `Uploading ${newest.label}` : ''}
      </p>
      {uploads.length > 0 && <UploadList uploads={uploads} />}
    </>
  );
}

function UploadList({ uploads }: { uploads: ReturnType<typeof useUploadPhotos>['uploads'] }) {
  return (
    <ul className="flex flex-col gap-2" aria-label="Uploads in progress">
      {uploads.map((u) => (
        <li key={u.id} className="rounded-xl border border-border bg-surface p-3">
          <div className="mb-1 flex justify-between gap-2 text-sm">
            <span className="truncate">Uploading {u.label}</span>
            <span className="text-muted tabular-nums">{Math.round(u.progress * 100)}%</span>
          </div>
          <ProgressBar value={u.progress * 100} label={`Uploading ${u.label}`} />
        </li>
      ))}
    </ul>
  );
}

export default function GalleryPage() {
  const [q, setQ] = useState('');
  const params = new URLSearchParams(useSearch());
  const duplicatesAlbum = params.get('album') === 'duplicates';
  // '?view=favorites' (the organizer's Favorites album links here) shows the Favorites album.
  const view: GalleryView = params.get('view') === 'favorites' ? 'favorites' : 'all';
  const [, navigate] = useLocation();
  const library = useInfiniteQuery({ ...timelinePagesQueryOptions(), enabled: view === 'all' });
  const results = useInfiniteQuery({ ...timelinePagesQueryOptions(q), enabled: q !== '' && view === 'all' });
  const favorites = useInfiniteQuery({ ...favoritePagesQueryOptions(), enabled: view === 'favorites' });
  const query = view === 'favorites' ? favorites : q ? results : library;
  // 'N photos available' counts the whole library in either view.
  const summary = useQuery({ ...photoSummaryQueryOptions(), enabled: view === 'favorites' });
  const { uploads, upload } = useUploadPhotos();
  const fileInput = useRef<HTMLInputElement>(null);
  const [viewerIndex, setViewerIndex] = useState<number | null>(null);
  const dropViewer = useCallback(() => setViewerIndex(null), []);
  const [dragging, setDragging] = useState(false);

  // An answer arrives through useSyncExternalStore, which React renders in one blocking task; the
  // grid it fills (a few dozen tiles, their thumbhash sketches) is rendered from the deferred copy,
  // in a render that yields to the browser, while the blocking one keeps what is on screen.
  const shown = useDeferredValue(query.data);
  const waiting = shown === undefined && !query.isError;
  const photos = useMemo(() => shown?.pages.flatMap((p) => p.items) ?? [], [shown]);
  const total = shown?.pages[0]?.total ?? 0;
  // Whether more follow the photos drawn (the deferred answer), for the viewer: the live
  // `hasNextPage` went false with the last page a render before its photos were drawn, and the
  // viewer, waiting on Next for them, took it as 'no more' and stayed on the last photo.
  const moreAfterShown = shown?.pages.at(-1)?.nextCursor != null;
  const selection = useSelection(photos);
  const selectToggle = useRef<HTMLButtonElement>(null);
  const uploadButton = useRef<HTMLButtonElement>(null);
  // The selection bar goes when selecting ends (its Cancel, or a delete done): focus would fall to
  // the page from the control just pressed, so it goes to Select, or to Upload once nothing is left.
  const refocusAfterSelecting = useRef(false);
  const { stop: stopSelection } = selection;
  const endSelecting = useCallback(() => {
    refocusAfterSelecting.current = true;
    stopSelection();
  }, [stopSelection]);
  useEffect(() => {
    if (selection.active || !refocusAfterSelecting.current) return;
    refocusAfterSelecting.current = false;
    (selectToggle.current ?? uploadButton.current)?.focus();
  }, [selection.active]);
  // The photo the viewer was opened from, and its tile: focus goes back to that tile on close.
  const viewerOpener = useRef<{ tile: Element | null; id: string | undefined }>({ tile: null, id: undefined });
  const photosNow = useRef(photos);
  photosNow.current = photos;
  // The answer as it is now: the grid draws a deferred copy, which may still show a photo just deleted.
  const listedNow = useRef(query.data);
  listedNow.current = query.data;
  const openViewer = useCallback((index: number) => {
    const id = photosNow.current[index]?.id;
    viewerOpener.current = { tile: document.activeElement, id };
    pushViewerEntry(id);
    setViewerIndex(index);
  }, []);
  const closeViewer = useCallback(() => {
    setViewerIndex(null);
    leaveViewerEntry();
  }, []);
  // Back closes the viewer: its history entry is left (the URL stays the gallery's).
  const viewerOpen = viewerIndex !== null;
  useCloseViewerOnBack(viewerOpen, dropViewer);
  // Nothing left to show (the last favourite un-hearted in the Favorites album, the library
  // emptied elsewhere): the viewer goes rather than stay open on an empty screen.
  const nothingListed = !waiting && !query.isError && photos.length === 0;
  useEffect(() => {
    if (viewerOpen && nothingListed) closeViewer();
  }, [viewerOpen, nothingListed, closeViewer]);
  // Come back (Back from the photo editor) to the viewer's entry: the viewer opens again on its
  // photo, once the list holding it is here; a photo no longer listed leaves a plain entry.
  // The duplicates album's viewer keeps an entry of its own, reopened by that album.
  const reopen = useRef(duplicatesAlbum ? null : viewerEntryPhoto());
  useEffect(() => {
    const id = reopen.current;
    if (id === null || waiting) return;
    reopen.current = null;
    const index = photos.findIndex((p) => p.id === id);
    if (index < 0) return forgetViewerEntry();
    viewerOpener.current = { tile: null, id };
    setViewerIndex(index);
  }, [photos, waiting]);
  // The tile may be going or gone: its photo deleted in the viewer (the last one of the library
  // too), or drawn again in another row (a photo before it deleted there). Focus fell to the page;
  // it goes to that photo's tile, or to Select, or to Upload once nothing is left.
  const viewerClosed = useCallback((event: Event) => {
    const { tile, id } = viewerOpener.current;
    const listed = !!listedNow.current?.pages.some((p) => p.items.some((item) => item.id === id));
    if (listed && tile?.isConnected) return;
    event.preventDefault();
    const again = listed
      ? [...document.querySelectorAll<HTMLElement>('[data-photo-id]')].find((t) => t.dataset.photoId === id)
      : undefined;
    (again ?? selectToggle.current ?? uploadButton.current)?.focus();
  }, []);
  const selectToggleRef = useCallback((node: HTMLButtonElement | null) => {
    selectToggle.current = node;
    if (!node) return;
    return () => {
      selectToggle.current = null;
      // Select goes with the last photo (its list arrives after the selection ends): focus on it
      // would fall to the page. Detached before the node leaves the document.
      if (document.activeElement === node) queueMicrotask(() => uploadButton.current?.focus());
    };
  }, []);
  // Shown with the grid it counts (the same deferred answer), so the header changes once.
  // Unknown, not 0, while the library's first page is refused or given up on.
  const libraryTotal =
    view === 'favorites'
      ? summary.data?.total
      : query === library
        ? waiting || query.isLoadingError
          ? undefined
          : total
        : library.isPending || library.isLoadingError
          ? undefined
          : (library.data?.pages[0]?.total ?? 0);
  // The server painted this screen's first photos (web-pages.ts): kept on screen until the first
  // answer renders the same photos, instead of skeletons in between (a flash, a later largest paint).
  const painted = usePaintedContent();
  const showPainted = painted !== null && waiting && view === 'all' && !q;
  useEffect(() => {
    if (!waiting) forgetFirstPaint();
  }, [waiting]);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = query;
  const loadMore = useCallback(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);
  // A request refused once photos are shown (a next page or a refresh: the page budget's 429, the
  // network, a 5xx) keeps them on screen, the failure below them; the whole screen's error is for
  // a first page that never came. The grid stops asking while it stands (each new loadMore asked
  // again, in a loop): the user asks again, with Try again or with Next in the viewer.
  const failedAfterPhotos = query.isError && !query.isLoadingError;
  const failure = failedAfterPhotos
    ? `${query.isFetchNextPageError ? 'Could not load more photos.' : 'Could not refresh your photos.'} ${errorMessage(query.error, '')}`.trim()
    : undefined;
  // A refused read asked again (a first page, a next page or a refresh), its answer not yet come.
  const retrying = query.isError && query.isFetching;
  // Where focus goes once Try again is answered: the first photo it brought (the button goes; of a
  // first page, the first photo of all, or Upload when the library is empty).
  const retryFrom = useRef<number | null>(null);
  const { refetch } = query;
  const tryAgain = () => {
    if (retrying) return;
    retryFrom.current = photos.length;
    if (query.isFetchNextPageError) loadMore();
    else void refetch();
  };
  const tryAgainButton = (
    <button
      type="button"
      onClick={tryAgain}
      // Not `disabled`: Chrome would move focus off it to the page.
      aria-disabled={retrying || undefined}
      className={cn(
        'inline-flex min-h-11 items-center rounded-xl border border-border bg-surface px-4 text-sm font-semibold',
        retrying && 'cursor-progress opacity-60',
      )}
    >
      Try again
    </button>
  );
  // Below the grid, or under an empty library's words when a refresh of it was refused.
  const failureNote = failure ? (
    <div className="flex flex-col items-center gap-3 py-6 text-center">
      {/* Keyed by the refusal: the same words refused again are read out again. */}
      <p key={query.errorUpdateCount} role="alert" className="text-sm text-danger">
        {failure}
      </p>
      {tryAgainButton}
    </div>
  ) : null;
  const settled = shown === query.data;
  useEffect(() => {
    const from = retryFrom.current;
    if (from === null || failedAfterPhotos || !settled) return;
    retryFrom.current = null;
    const id = photos[Math.min(from, photos.length - 1)]?.id;
    // A frame later: a grid drawn for the first time (a first page's Try again) lays out its tiles
    // in a render after this one, and focus went to Select, past the photos.
    requestAnimationFrame(() => {
      if (document.activeElement !== document.body && document.activeElement !== null) return;
      const tiles = [...document.querySelectorAll<HTMLElement>('[data-photo-id]')];
      (tiles.find((t) => t.dataset.photoId === id) ?? selectToggle.current ?? uploadButton.current)?.focus();
    });
  }, [failedAfterPhotos, settled, photos]);

  const onFiles = (list: FileList | null) => {
    const files = Array.from(list ?? []);
    if (files.length) void upload(files);
  };
  // Files dropped beside this screen's content (on the status bar or the bottom navigation) were
  // opened by the browser in the app's place, ending any upload in flight: a drop of files anywhere
  // on the screen uploads them.
  useEffect(() => {
    const hasFiles = (e: DragEvent) => e.dataTransfer?.types.includes('Files') ?? false;
    const over = (e: DragEvent) => {
      if (hasFiles(e)) e.preventDefault();
    };
    const drop = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      setDragging(false);
      const files = Array.from(e.dataTransfer?.files ?? []);
      if (files.length) void upload(files);
    };
    window.addEventListener('dragover', over);
    window.addEventListener('drop', drop);
    return () => {
      window.removeEventListener('dragover', over);
      window.removeEventListener('drop', drop);
    };
  }, [upload]);

  if (showPainted) return <div className="contents" dangerouslySetInnerHTML={{ __html: painted }} />;

  return (
    <main
      className={cn(
        'flex flex-col gap-4 p-4 pb-24',
        dragging && 'outline-2 outline-offset-[-8px] outline-primary outline-dashed',
      )}
      onDragOver={(e) => {
        if (e.dataTransfer.types.includes('Files')) {
          e.preventDefault();
          setDragging(true);
        }
      }}
      onDragLeave={(e) => {
        if (e.currentTarget === e.target) setDragging(false);
      }}
    >
      <PageHeader
        title="Photo Gallery"
        // A no-break space keeps the subtitle's line while the count loads: nothing below moves.
        subtitle={libraryTotal === undefined ? '\u00a0' : `${libraryTotal} photos available`}
        action={
          <>
            {photos.length > 0 && (
              <button
                ref={selectToggleRef}
                type="button"
                onClick={selection.active ? selection.stop : selection.begin}
                aria-pressed={selection.active}
                className="inline-flex min-h-11 items-center gap-2 rounded-xl border border-border bg-surface px-4 text-sm font-semibold"
              >
                <CheckSquare className="size-4" aria-hidden />
                {selection.active ? 'Done' : 'Select'}
              </button>
            )}
            <input
              ref={fileInput}
              type="file"
              // Browsers without HEIC among their image types (Chromium before 132, Firefox) grey
              // out an iPhone's photos under 'image/*' alone; the server reads them.
              accept="image/*,.heic,.heif"
              multiple
              // Opened by the Upload button; a Tab stop of its own would be an invisible focus.
              tabIndex={-1}
              className="sr-only"
              id="photo-upload-input"
              aria-label="Choose photos to upload"
              onChange={(e) => {
                onFiles(e.currentTarget.files);
                e.currentTarget.value = '';
              }}
            />
            <button
              ref={uploadButton}
              type="button"
              onClick={() => fileInput.current?.click()}
              className="inline-flex min-h-11 items-center gap-2 rounded-xl bg-primary px-4 text-sm font-semibold text-primary-fg"
            >
              <Upload className="size-4" aria-hidden />
              Upload
            </button>
          </>
        }
      />

      <p className="flex items-start gap-2 rounded-xl bg-primary-soft p-3 text-sm">
        <Images className="mt-0.5 size-4 shrink-0" aria-hidden />
        <span>
          Note: a real app would access your device's photo gallery. Demo images are shown here, and you can upload your
          own photos<span className="hidden sm:inline"> or drop them on this page</span>.
        </span>
      </p>

      <UploadBars uploads={uploads} />

      {duplicatesAlbum ? (
        <DuplicatesView />
      ) : (
        <>
          <ViewSwitch
            view={view}
            onChange={(v) => {
              selection.stop();
              setQ('');
              navigate(v === 'favorites' ? '/gallery?view=favorites' : '/gallery', { replace: true });
            }}
          />
          {view === 'all' && <SearchField onSearch={setQ} />}
          {q && view === 'all' && query.isSuccess && !waiting && (
            <p role="status" className="text-sm text-muted">
              {total === 1 ? '1 photo found' : `${total} photos found`} for “{q}”
            </p>
          )}
        </>
      )}

      {duplicatesAlbum ? null : waiting ? (
        <div className="grid grid-cols-2 gap-3" aria-busy="true" aria-label="Loading photos">
          {Array.from({ length: 6 }, (_, i) => (
            <SkeletonTile key={i} />
          ))}
        </div>
      ) : query.isLoadingError ? (
        // With a way forward: a first page given up on (a dead connection) left only reloading.
        <div className="flex flex-col items-center gap-3 py-6 text-center">
          <p key={query.errorUpdateCount} role="alert" className="text-danger">
            {errorMessage(query.error, 'Could not load your photos.')}
          </p>
          {tryAgainButton}
        </div>
      ) : photos.length === 0 && view === 'favorites' ? (
        <div className="flex flex-col items-center gap-2 py-12 text-center">
          <Heart className="size-12 text-muted" aria-hidden />
          <h2 className="text-lg font-semibold">No favorites yet</h2>
          <p className="text-sm text-muted">Tap the heart on a photo to add it here</p>
          {failureNote}
        </div>
      ) : photos.length === 0 && q && view === 'all' ? (
        <p className="py-8 text-center text-sm text-muted">No photos match your search</p>
      ) : photos.length === 0 ? (
        <div className="flex flex-col items-center gap-2 py-12 text-center">
          <ImagePlus className="size-12 text-muted" aria-hidden />
          <h2 className="text-lg font-semibold">No photos yet</h2>
          <p className="text-sm text-muted">Your uploaded photos will appear here</p>
          {failureNote}
        </div>
      ) : (
        <>
          <PhotoGrid
            photos={photos}
            total={total}
            hasMore={!!hasNextPage && !failedAfterPhotos}
            loadMore={loadMore}
            onOpen={openViewer}
            months
            selection={selection}
          />
          {failureNote}
        </>
      )}

      {selection.active && <SelectBar selected={selection.ids} onDone={endSelecting} />}

      {/* Mounted only while open: closed, it would still cost a render of every hook on the first screen. */}
      {viewerIndex !== null && (
        <PhotoViewer
          photos={photos}
          open
          initialIndex={viewerIndex}
          onOpenChange={(o) => !o && closeViewer()}
          onCloseAutoFocus={viewerClosed}
          onShow={showInViewerEntry}
          hasMore={moreAfterShown}
          loadMore={loadMore}
          loadError={retrying ? undefined : failure}
          showEdit
          showSimilar
          showManage
        />
      )}
    </main>
  );
}
