import * as Tabs from '@radix-ui/react-tabs';
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { Fragment, useEffect, useMemo, useRef, useState, type FormEvent, type RefObject } from 'react';
import { Link } from 'wouter';
import { FAVORITES_ALBUM_ID, isBlankAlbumName } from '@contract/albums-values';
import { Button } from '../../components/ui/button';
import { Card } from '../../components/ui/card';
import { PageHeader } from '../../components/ui/page-header';
import { LoadFailed, RefreshFailed, useReadRetry, useRetryRefresh } from '../../components/ui/refresh-failed';
import { Spinner } from '../../components/ui/spinner';
import { errorMessage, errorStatus } from '../../lib/api';
import { toast } from '../../lib/toast';
import { cn } from '../../lib/cn';
import { categoryLabel, photoCategoryOf } from '../../lib/photo-category';
import type { Photo, PhotoSummary } from '@contract/photos';
import type { CategoryResult } from '@domain/photo-categories';
import { PhotoImage, photoSummaryQueryOptions, photosQueryOptions } from '../gallery';
import { albumsQueryOptions, newIdempotencyKey, useAlbums, useCreateAlbum } from './albums-query';
import { DuplicatesAlbumItem, useDuplicatesAlbum } from './duplicates-album';
import { useAnalysisStatus, useAnalyzeAll } from './analysis-status-query';
import { categoryPagesQueryOptions, isCategoryPagesKey } from './category-query';

const tabClass =
  'min-h-11 flex-1 rounded-lg px-3 text-sm font-semibold text-muted data-[state=active]:bg-surface data-[state=active]:text-fg data-[state=active]:shadow-sm';

export default function OrganizerPage() {
  const qc = useQueryClient();
  const photos = useQuery(photosQueryOptions());
  const summary = useQuery(photoSummaryQueryOptions());
  const status = useAnalysisStatus();
  const analyzeAll = useAnalyzeAll();
  const [waiting, setWaiting] = useState(false);

  const list = useMemo(() => photos.data ?? [], [photos.data]);
  const total = status.data?.total ?? list.length;
  const analyzed = status.data?.analyzed ?? list.filter((p) => p.analyzed).length;
  const pending = status.data?.pending ?? 0;
  const busy = analyzeAll.isPending || waiting || pending > 0;

  // New results arrive while jobs run: refresh the photos (AI badges, tags) and albums as the count
  // moves. Not a category's pages: each refresh asks every page loaded again, so one scrolled far
  // into would spend the user's page budget at every poll; they are refreshed once the run ends.
  const lastAnalyzed = useRef(analyzed);
  useEffect(() => {
    if (analyzed !== lastAnalyzed.current) {
      lastAnalyzed.current = analyzed;
      void qc.invalidateQueries({
        queryKey: photosQueryOptions().queryKey,
        predicate: (q) => !isCategoryPagesKey(q.queryKey),
      });
      void qc.invalidateQueries({ queryKey: albumsQueryOptions().queryKey });
    }
  }, [analyzed, qc]);

  // The run this page started is over when nothing is pending any more.
  useEffect(() => {
    if (waiting && status.data && status.data.pending === 0 && !analyzeAll.isPending) {
      setWaiting(false);
      void qc.invalidateQueries({ queryKey: photosQueryOptions().queryKey });
      void qc.invalidateQueries({ queryKey: albumsQueryOptions().queryKey });
      toast({
        title: 'Analysis Complete',
        description: `${status.data.analyzed} of ${status.data.total} photos analyzed.`,
        variant: 'success',
      });
    }
  }, [waiting, status.data, analyzeAll.isPending, qc]);

  const startAnalysis = () => {
    analyzeAll.mutate(undefined, {
      onSuccess: () => setWaiting(true),
      onError: () =>
        toast({
          title: 'Analysis Failed',
          description: 'Failed to analyze photos. Please try again.',
          variant: 'destructive',
        }),
    });
  };

  const need = Math.max(total - analyzed, 0);
  // Neither the status nor the list answered (a lost connection, a server fault): 0/0 is no count,
  // and 'All photos analyzed!' would be untrue.
  const counted = status.data !== undefined || photos.data !== undefined;

  return (
    <main className="flex flex-col gap-4 p-4">
      <PageHeader title="Photo Organizer" subtitle="AI-powered photo organization" />

      <Card aria-labelledby="ai-analysis-title" className="flex flex-col gap-3">
        <div className="flex items-center justify-between gap-2">
          <h2 id="ai-analysis-title" className="text-lg font-semibold">
            AI Analysis
          </h2>
          <span className="rounded-full bg-primary-soft px-3 py-1 text-sm font-semibold" aria-live="polite">
            {analyzed}/{total} analyzed
          </span>
        </div>
        {status.isError && (
          // The last counts stay; this says why they may be behind (e.g. the server's 429 message).
          <p role="status" className="text-sm text-muted">
            {errorMessage(status.error, 'Could not refresh the analysis status.')}
          </p>
        )}
        {photos.isLoading || status.isLoading ? (
          <Spinner />
        ) : !counted ? null : need > 0 || busy ? (
          <>
            <p className="text-sm text-muted">{need} photos need AI analysis for smart organization.</p>
            <Button onClick={startAnalysis} pending={busy}>
              {busy ? 'Analyzing...' : 'Analyze Photos'}
            </Button>
          </>
        ) : (
          <p className="text-sm text-success">All photos analyzed! Smart albums are available.</p>
        )}
      </Card>

      <Tabs.Root defaultValue="photos" className="flex flex-col gap-3">
        {/* With large text the three tabs are wider than a phone: the strip scrolls, not the page. */}
        <Tabs.List aria-label="Organizer views" className="flex gap-1 overflow-x-auto rounded-xl bg-surface-2 p-1">
          <Tabs.Trigger value="photos" className={tabClass}>
            Photos
          </Tabs.Trigger>
          <Tabs.Trigger value="albums" className={tabClass}>
            Albums
          </Tabs.Trigger>
          <Tabs.Trigger value="categories" className={tabClass}>
            Categories
          </Tabs.Trigger>
        </Tabs.List>
        <Tabs.Content value="photos">
          <PhotosTab
            photos={list}
            loading={photos.isLoading}
            error={photos.data ? null : photos.error}
            onRetry={() => void photos.refetch()}
          />
        </Tabs.Content>
        <Tabs.Content value="albums">
          <AlbumsTab />
        </Tabs.Content>
        <Tabs.Content value="categories">
          <CategoriesTab photos={list} listed={!photos.isLoading} counts={summary.data?.categories} />
        </Tabs.Content>
      </Tabs.Root>
    </main>
  );
}

/** Said when an album was refused because a selected photo was deleted (in another tab, say). */
const SELECTION_GONE_MESSAGE = 'A selected photo is no longer in your library. Your selection has been updated.';

function PhotosTab({
  photos,
  loading,
  error,
  onRetry,
}: {
  photos: Photo[];
  loading: boolean;
  error: Error | null;
  onRetry: () => void;
}) {
  const qc = useQueryClient();
  const [selected, setSelected] = useState<string[]>([]);
  const [name, setName] = useState('');
  const createAlbum = useCreateAlbum();
  const grid = useRef<HTMLUListElement>(null);
  // The album the form last sent and its Idempotency-Key. Pressed again for the same album (its
  // answer lost to the connection, the error shown), the key goes again and the server answers
  // the album it made instead of making a copy; another name or selection is another album.
  const sent = useRef<{ album: string; key: string } | null>(null);

  // A photo gone from the list (deleted elsewhere, then refreshed) is no longer selected: it can
  // neither be seen nor unselected, and every album with it would be refused.
  useEffect(() => {
    setSelected((s) => {
      const kept = s.filter((id) => photos.some((p) => p.id === id));
      return kept.length === s.length ? s : kept;
    });
  }, [photos]);

  const toggle = (id: string) => setSelected((s) => (s.includes(id) ? s.filter((x) => x !== id) : [...s, id]));

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (isBlankAlbumName(name) || selected.length === 0) {
      toast({
        title: 'Invalid Input',
        description: 'Please enter album name and select photos.',
        variant: 'destructive',
      });
      return;
    }
    const body = { name: name.trim(), description: `Album with ${selected.length} photos`, photoIds: selected };
    const asked = JSON.stringify(body);
    if (sent.current?.album !== asked) sent.current = { album: asked, key: newIdempotencyKey() };
    createAlbum.mutate(
      { body, key: sent.current.key },
      {
        onSuccess: (album) => {
          sent.current = null;
          toast({ title: 'Album Created', description: `"${album.name}" was created.`, variant: 'success' });
          setName('');
          setSelected([]);
          // The form goes with the selection; focus goes on to the photos, not to the page's start.
          grid.current?.querySelector('button')?.focus();
        },
        // A refusal the user can act on (the album cap, too many at once) says why; only a server
        // fault or a lost connection gets the generic line. A photo deleted since the list was
        // loaded (in another tab) made every retry fail the same way: the list is asked again,
        // which drops it from the selection, and the rest stays for the next try.
        onError: (err) => {
          const status = errorStatus(err);
          const fallback = 'Failed to create album. Please try again.';
          const description =
            status === 404
              ? SELECTION_GONE_MESSAGE
              : status !== undefined && status < 500
                ? errorMessage(err, fallback)
                : fallback;
          toast({ title: 'Error', description, variant: 'destructive' });
          if (status === 404) void qc.invalidateQueries({ queryKey: photosQueryOptions().queryKey });
        },
      },
    );
  };

  if (loading) return <Spinner />;
  // Without an answer, "No photos yet" would be untrue (a lost connection, a server fault).
  // With a way forward: a list given up on (a dead connection) left only reloading.
  if (error)
    return (
      <div className="flex flex-col items-center gap-3 py-8 text-center">
        <p role="alert" className="text-sm text-muted">
          {errorMessage(error, 'Could not load your photos.')}
        </p>
        <Button variant="outline" size="sm" onClick={onRetry}>
          Try again
        </Button>
      </div>
    );
  if (photos.length === 0) return <p className="py-8 text-center text-sm text-muted">No photos yet</p>;

  return (
    // The album form floats above the bottom navigation, as the gallery's selection bar does: in the
    // flow above the grid it pushed every photo down by its height at the first tap, so the next tap
    // landed on another photo (and, scrolled down, it appeared out of sight above). The padding
    // lets the last row scroll clear of it.
    <div className={cn('flex flex-col gap-3', selected.length > 0 && 'pb-28')}>
      {selected.length > 0 && (
        <Card
          aria-label="New album"
          data-bottom-panel=""
          className="fixed inset-x-0 bottom-[calc(4.5rem+env(safe-area-inset-bottom))] z-shell mx-auto w-[calc(100%-1.5rem)] max-w-[406px] shadow-lg"
        >
          <form onSubmit={submit} className="flex flex-col gap-2">
            {/* The count beside the label: one line less of the photos covered. */}
            <div className="flex items-baseline justify-between gap-2">
              <label htmlFor="album-name" className="text-sm font-medium">
                Album name
              </label>
              <p className="text-sm text-muted" aria-live="polite">
                {selected.length} photos selected
              </p>
            </div>
            <div className="flex gap-2">
              <input
                id="album-name"
                value={name}
                onChange={(e) => setName(e.target.value)}
                placeholder="Enter album name"
                maxLength={100}
                className="min-h-11 min-w-0 flex-1 rounded-xl border border-border bg-bg px-3 text-sm"
              />
              <Button type="submit" pending={createAlbum.isPending}>
                Create Album
              </Button>
            </div>
          </form>
        </Card>
      )}
      <ul ref={grid} className="grid grid-cols-3 gap-2" aria-label="Photos">
        {photos.map((p) => {
          const on = selected.includes(p.id);
          // The name replaces the button's content for a screen reader, so the AI badge and the
          // tags, which tell the photos apart here, are its description.
          const described = [p.analyzed && `ai-${p.id}`, p.tags.length > 0 && `tags-${p.id}`].filter(Boolean);
          return (
            <li key={p.id}>
              <button
                type="button"
                aria-pressed={on}
                aria-label={`Select ${p.name}`}
                aria-describedby={described.length > 0 ? described.join(' ') : undefined}
                onClick={() => toggle(p.id)}
                className={cn(
                  'relative block w-full overflow-hidden rounded-xl border-2 text-left',
                  on ? 'border-primary' : 'border-transparent',
                )}
              >
                <PhotoImage
                  src={p.thumbnailUrl}
                  thumbhash={p.thumbhash}
                  alt={p.name}
                  className="aspect-square w-full"
                  imgClassName="object-cover"
                />
                {p.analyzed && (
                  <span
                    id={`ai-${p.id}`}
                    className="absolute top-1 left-1 rounded-md bg-primary px-1.5 py-0.5 text-[10px] font-bold text-primary-fg"
                  >
                    AI
                  </span>
                )}
                {on && (
                  <span
                    aria-hidden
                    className="absolute top-1 right-1 grid size-5 place-items-center rounded-full bg-primary text-xs text-primary-fg"
                  >
                    ✓
                  </span>
                )}
                {p.tags.length > 0 && (
                  <span id={`tags-${p.id}`} className="flex flex-wrap gap-1 p-1">
                    {/* A space between the tags (a flex container does not lay it out), so they are read as words. */}
                    {p.tags.slice(0, 2).map((t, i) => (
                      <Fragment key={t}>
                        {i > 0 && ' '}
                        <span className="rounded bg-surface-2 px-1 text-[10px] text-muted">{t}</span>
                      </Fragment>
                    ))}
                  </span>
                )}
              </button>
            </li>
          );
        })}
      </ul>
    </div>
  );
}

function AlbumsTab() {
  // Kept on screen whatever the first read did, so a first read's Try again has somewhere to put
  // focus once the albums it brought replace it (its button goes with the refusal).
  const tab = useRef<HTMLDivElement>(null);
  return (
    <div ref={tab} tabIndex={-1} className="rounded-xl focus-visible:outline-2 focus-visible:outline-primary">
      <AlbumsTabContent tab={tab} />
    </div>
  );
}

function AlbumsTabContent({ tab }: { tab: RefObject<HTMLDivElement | null> }) {
  const albums = useAlbums();
  const duplicates = useDuplicatesAlbum();
  // Try again, once answered, puts focus on the list it brought.
  const shown = useRef<HTMLElement | null>(null);
  const retry = useRetryRefresh(albums, shown);
  const firstRead = useReadRetry(albums);
  if (albums.isLoading) return <Spinner />;
  // Without any answer yet, "No albums yet" would be untrue; a later failure keeps the last list.
  if (albums.isError && !albums.data)
    return <LoadFailed query={firstRead} fallback="Could not load your albums." target={tab} className="py-8" />;
  const list = albums.data ?? [];
  // A refresh refused (the per-user limit on the list, the network) keeps the last list, which
  // may lack an album just made ('Album Created', then not there): it says so, and offers again.
  const refreshFailed = albums.isError ? <RefreshFailed query={albums} what="your albums" onRetry={retry} /> : null;
  if (list.length === 0 && !duplicates)
    return (
      <>
        <p ref={(el) => void (shown.current = el)} tabIndex={-1} className="py-8 text-center text-sm text-muted">
          No albums yet
        </p>
        {refreshFailed}
      </>
    );
  return (
    <>
      {refreshFailed}
      <ul
        ref={(el) => void (shown.current = el)}
        tabIndex={-1}
        className="flex flex-col gap-2 rounded-xl focus-visible:outline-2 focus-visible:outline-primary"
        aria-label="Albums"
      >
        {duplicates && <DuplicatesAlbumItem album={duplicates} />}
        {list.map((a) => (
          <li key={a.id}>
            <Card className="flex items-start justify-between gap-2">
              {/* A name is up to 100 characters of the user's, possibly one word: it breaks rather
                than widen the page. */}
              <div className="min-w-0 break-words">
                <h3 className="font-semibold">
                  {a.id === FAVORITES_ALBUM_ID ? (
                    <Link href="/gallery?view=favorites" className="underline-offset-2 hover:underline">
                      {a.name}
                    </Link>
                  ) : (
                    a.name
                  )}
                </h3>
                <p className="text-sm text-muted">{a.description}</p>
              </div>
              {a.isSmartAlbum && (
                <span className="shrink-0 rounded-full bg-primary-soft px-2 py-0.5 text-xs font-semibold">
                  Smart Album
                </span>
              )}
            </Card>
          </li>
        ))}
      </ul>
    </>
  );
}

/**
 * Categories with their counts over the whole library (from the summary; the photo list is only
 * the newest photos, so it gives the thumbnails, and the counts until the summary has loaded).
 */
function CategoriesTab({
  photos,
  listed,
  counts,
}: {
  photos: Photo[];
  /** The plain list has answered (or failed): a category it lacks photos of asks for its own. */
  listed: boolean;
  counts?: PhotoSummary['categories'];
}) {
  const groups = useMemo(() => {
    const m = new Map<CategoryResult, Photo[]>();
    for (const p of photos) {
      if (!p.analyzed) continue;
      const c = photoCategoryOf(p.category);
      m.set(c, [...(m.get(c) ?? []), p]);
    }
    const sizes = counts
      ? counts.map((c) => [photoCategoryOf(c.category), c.count] as const)
      : [...m.entries()].map(([c, items]) => [c, items.length] as const);
    return sizes
      .filter(([, n]) => n > 0)
      .map(([c, n]) => [c, n, m.get(c) ?? []] as const)
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  }, [photos, counts]);

  if (groups.length === 0) return <p className="py-8 text-center text-sm text-muted">No categories yet</p>;
  return (
    <div className="flex flex-col gap-3">
      {groups.map(([category, count, items]) => (
        <CategoryCard key={category} category={category} count={count} items={items} listed={listed} />
      ))}
    </div>
  );
}

function CategoryCard({
  category,
  count,
  items,
  listed,
}: {
  category: CategoryResult;
  count: number;
  items: Photo[];
  listed: boolean;
}) {
  const [open, setOpen] = useState(false);
  const list = useRef<HTMLUListElement>(null);
  const more = useRef(false);
  const label = categoryLabel(category);
  // The plain list holds the newest 200 photos only: the category's own pages give all of them
  // once View All is pressed, and its first thumbnails when none of the newest 200 is in it.
  const pages = useInfiniteQuery({
    ...categoryPagesQueryOptions(category),
    enabled: open || (listed && items.length < Math.min(4, count)),
  });
  const paged = useMemo(() => pages.data?.pages.flatMap((p) => p.items), [pages.data]);
  const shown = paged ?? items;
  // 'View All' goes once pressed: focus moves to the photos, named, not to the page's start.
  useEffect(() => {
    if (open) list.current?.focus();
  }, [open]);
  // Show more goes with the last page: focus moves back to the photos as it does for View All.
  useEffect(() => {
    if (!more.current || pages.isFetchingNextPage) return;
    more.current = false;
    if (!pages.hasNextPage) list.current?.focus();
  }, [pages.isFetchingNextPage, pages.hasNextPage]);
  const showMore = () => {
    more.current = true;
    void pages.fetchNextPage();
  };
  return (
    <Card aria-label={label} className="flex flex-col gap-2">
      <div className="flex items-center justify-between">
        <h3 className="font-semibold capitalize">{label}</h3>
        <span className="rounded-full bg-surface-2 px-2 py-0.5 text-xs font-semibold">{count}</span>
      </div>
      <ul
        ref={list}
        tabIndex={-1}
        aria-label={`${label} photos`}
        className="grid grid-cols-4 gap-1 rounded-lg focus-visible:outline-2 focus-visible:outline-primary"
      >
        {(open ? shown : shown.slice(0, 4)).map((p) => (
          <li key={p.id}>
            <PhotoImage
              src={p.thumbnailUrl}
              thumbhash={p.thumbhash}
              alt={p.name}
              className="aspect-square w-full rounded-lg"
              imgClassName="object-cover"
            />
          </li>
        ))}
      </ul>
      {open && (
        <p className="text-sm text-muted" aria-live="polite">
          {pages.isPending ? 'Loading photos...' : `Showing ${shown.length} of ${count} photos`}
        </p>
      )}
      {/* A first page refused offers Try again, and focus then goes to the photos it brought: the
          button went with the refusal, and focus with it to the page. A later page is asked again
          by Show more photos. */}
      {open &&
        pages.isError &&
        (pages.data ? (
          <p role="alert" className="text-sm text-muted">
            {errorMessage(pages.error, 'Could not load these photos.')}
          </p>
        ) : (
          <LoadFailed query={pages} fallback="Could not load these photos." target={list} />
        ))}
      {count > 4 && !open && (
        <Button variant="outline" size="sm" onClick={() => setOpen(true)}>
          View All {count} Photos
        </Button>
      )}
      {open && pages.hasNextPage && (
        <Button variant="outline" size="sm" pending={pages.isFetchingNextPage} onClick={showMore}>
          {pages.isFetchingNextPage ? 'Loading...' : 'Show more photos'}
        </Button>
      )}
    </Card>
  );
}
