import * as Slider from '@radix-ui/react-slider';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { ArrowLeft, Loader2, RotateCcw } from 'lucide-react';
import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';
import { Link, useSearch } from 'wouter';
import type { EditResponse } from '@contract/filters';
import { FILTER_LIST, FILTERS, INTENSITY, type FilterId } from '@domain/filters';
import { Button } from '../../components/ui/button';
import { LoadFailed } from '../../components/ui/refresh-failed';
import { errorMessage, errorStatus } from '../../lib/api';
import { cn } from '../../lib/cn';
import {
  editorPhotoQueryOptions,
  filterOptionsQueryOptions,
  filterPreviewQueryOptions,
  isEditablePhotoId,
  useApplyFilter,
  useEditsRunning,
  useRevertFilter,
} from './editor-queries';

/** A new preview is requested once the slider has rested this long. */
export const PREVIEW_DEBOUNCE_MS = 300;

function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const id = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(id);
  }, [value, ms]);
  return settled;
}

/**
 * The photo editor: the editor demo photo by default, any of the user's photos
 * with `?photoId=`. Pick one of six filters to preview it, tune the intensity, apply it as a new
 * version of the photo (the original is kept; 'Revert to original' brings it back).
 */
export default function PhotoEditorPage() {
  const photoId = new URLSearchParams(useSearch()).get('photoId') || 'demo';
  // Where focus goes once a Try again is answered: kept on screen while the photo comes.
  const heading = useRef<HTMLHeadingElement>(null);
  return (
    <main className="flex flex-col gap-4 p-4">
      <div className="flex items-center gap-2">
        <Link
          href="/gallery"
          aria-label="Back to gallery"
          className="grid size-11 place-items-center rounded-full hover:bg-surface-2"
        >
          <ArrowLeft className="size-6" aria-hidden />
        </Link>
        <h1 ref={heading} tabIndex={-1} className="text-2xl font-bold">
          Photo Editor
        </h1>
      </div>
      {isEditablePhotoId(photoId) ? (
        // Keyed: another photo starts with no filter chosen, not the last photo's choice.
        <Editor key={photoId} photoId={photoId} heading={heading} />
      ) : (
        <NotFound message="This photo could not be loaded." />
      )}
    </main>
  );
}

function NotFound({ message }: { message: string }) {
  return (
    <div className="py-12 text-center" role="alert">
      <p className="font-semibold">Photo not found</p>
      <p className="text-sm text-muted">{message}</p>
    </div>
  );
}

function Editor({ photoId, heading }: { photoId: string; heading: RefObject<HTMLHeadingElement | null> }) {
  const qc = useQueryClient();
  const photoQuery = useQuery(editorPhotoQueryOptions(photoId));
  const optionsQuery = useQuery(filterOptionsQueryOptions(photoId));
  const [selected, setSelected] = useState<FilterId | null>(null);
  const [intensity, setIntensity] = useState<number>(INTENSITY.default);
  const settledIntensity = useSettled(intensity, PREVIEW_DEBOUNCE_MS);
  const previewQuery = useQuery({
    ...filterPreviewQueryOptions(photoId, selected, settledIntensity),
    placeholderData: keepPreviousData,
  });
  const [loadedSrc, setLoadedSrc] = useState<string | null>(null);
  // A rendered preview the browser could not load (the render refused, the connection dropped):
  // without it, no load ever came and 'Generating preview...' stayed over the photo for good.
  const [failedSrc, setFailedSrc] = useState<string | null>(null);
  const apply = useApplyFilter();
  const revert = useRevertFilter();
  const filtersRef = useRef<HTMLUListElement>(null);

  const photo = photoQuery.data;
  // Also an apply or revert begun before this screen was left and opened again.
  const running = useEditsRunning(photo?.id);
  const busy = running.applying || running.reverting;
  const answeredUrl = selected ? previewQuery.data?.previewUrl : undefined;
  const previewFailed = answeredUrl !== undefined && failedSrc === answeredUrl;
  // The photo itself in place of a preview that would not load.
  const previewUrl = previewFailed ? undefined : answeredUrl;
  const shownSrc = previewUrl ?? photo?.previewUrl;
  const generating = selected !== null && (previewQuery.isFetching || (!!previewUrl && loadedSrc !== previewUrl));

  /**
   * The photo was deleted since it was loaded (in another tab, or on another device): asked again,
   * it answers not found and the screen says so, instead of offering a retry that can never work.
   */
  const recheckIfGone = useCallback(
    (err: unknown) => {
      if (errorStatus(err) === 404)
        void qc.invalidateQueries({ queryKey: editorPhotoQueryOptions(photoId).queryKey, exact: true });
    },
    [qc, photoId],
  );
  useEffect(() => recheckIfGone(previewQuery.error), [previewQuery.error, recheckIfGone]);

  const choose = (id: FilterId) => {
    if (id !== selected) setIntensity(INTENSITY.default);
    setSelected(id);
  };

  /**
   * The photo as the apply or revert answered it. The refresh that follows may fail (a server
   * restarting) and keep the photo from before: an edit just made then offered no Revert, and a
   * revert left it offered.
   */
  const showAnswered = (res: EditResponse) => qc.setQueryData(editorPhotoQueryOptions(photoId).queryKey, res.photo);

  const onApply = () => {
    if (!photo || !selected) return;
    // The toasts are the mutation's own (editor-queries.ts): they are told after the screen is left.
    apply.mutate(
      { photoId: photo.id, filterName: selected, intensity },
      { onSuccess: showAnswered, onError: recheckIfGone },
    );
  };

  const onRevert = () => {
    if (!photo) return;
    revert.mutate(
      { photoId: photo.id },
      {
        onSuccess: (res) => {
          showAnswered(res);
          setSelected(null);
          // The Revert button goes with the edit; focus goes to the filters, what comes next.
          filtersRef.current?.querySelector('button')?.focus();
        },
        onError: recheckIfGone,
      },
    );
  };

  // Gone: answered not found, at first or when asked again (deleted elsewhere). Any other failed
  // refresh (after an apply, a server restarting) keeps the photo on screen.
  const gone = photoQuery.isError && errorStatus(photoQuery.error) === 404;

  return photoQuery.isPending ? (
    <p className="py-12 text-center text-muted" role="status">
      Loading photo...
    </p>
  ) : gone ? (
    <NotFound message={errorMessage(photoQuery.error, 'This photo could not be loaded.')} />
  ) : !photo ? (
    // A first read that failed otherwise (the network, a 5xx, a proxy's page, READ_WAIT_MS): said
    // 'Photo not found', it told the user their photo was gone and offered no way to ask again.
    <div className="flex justify-center py-12">
      <LoadFailed query={photoQuery} fallback="This photo could not be loaded." target={heading} />
    </div>
  ) : (
    <>
      <section aria-label="Photo" className="flex flex-col gap-3">
        <div className="relative overflow-hidden rounded-2xl bg-surface-2">
          <img
            src={shownSrc}
            alt={selected && previewUrl ? `${photo.name} with the ${FILTERS[selected].name} filter` : photo.name}
            width={photo.width}
            height={photo.height}
            onLoad={(e) => setLoadedSrc(e.currentTarget.getAttribute('src'))}
            onError={(e) => {
              const src = e.currentTarget.getAttribute('src');
              if (src === previewUrl) setFailedSrc(src);
            }}
            className="block max-h-[55vh] w-full object-contain"
            data-testid="editor-image"
          />
          {/* Mounted before it has anything to say: a live region added with its words already in
              it is not read by some screen readers (NVDA, JAWS), so the wait went unannounced. */}
          <div role="status">
            {generating && (
              <div className="absolute inset-0 grid place-items-center bg-black/40 text-sm font-semibold text-white">
                <span className="flex items-center gap-2">
                  <Loader2 className="size-5 animate-spin" aria-hidden />
                  Generating preview...
                </span>
              </div>
            )}
          </div>
        </div>
        {selected && (previewQuery.isError || (previewFailed && !previewQuery.isFetching)) && (
          <p role="alert" className="text-sm text-danger">
            {errorMessage(previewQuery.error, 'The preview could not be generated.')}
          </p>
        )}
        <div className="min-w-0 break-words">
          <h2 className="text-lg font-semibold">{photo.name}</h2>
          {photo.tags.length > 0 && (
            <ul className="mt-1 flex flex-wrap gap-1" aria-label="Tags">
              {photo.tags.slice(0, 3).map((tag) => (
                <li key={tag} className="rounded-full bg-primary-soft px-2 py-0.5 text-xs">
                  {tag}
                </li>
              ))}
            </ul>
          )}
          {photo.description && <p className="mt-1 text-sm text-muted">{photo.description}</p>}
        </div>
      </section>

      <section aria-labelledby="filters-heading" className="flex flex-col gap-3">
        <h2 id="filters-heading" className="font-semibold">
          Filters
        </h2>
        <ul ref={filtersRef} className="grid grid-cols-3 gap-2">
          {FILTER_LIST.map((f) => {
            const swatch = optionsQuery.data?.find((o) => o.id === f.id)?.previewUrl;
            const active = selected === f.id;
            return (
              <li key={f.id}>
                <button
                  type="button"
                  aria-pressed={active}
                  onClick={() => choose(f.id)}
                  className={cn(
                    'flex h-full w-full flex-col items-stretch gap-1 rounded-xl border-2 bg-surface p-1.5 text-left transition',
                    active ? 'border-primary' : 'border-border hover:bg-surface-2',
                  )}
                >
                  <span className="block aspect-square overflow-hidden rounded-lg bg-surface-2">
                    {swatch && <img src={swatch} alt="" className="size-full object-cover" loading="lazy" />}
                  </span>
                  <span className="text-sm font-semibold">{f.name}</span>
                  {f.description && <span className="text-xs leading-tight text-muted">{f.description}</span>}
                </button>
              </li>
            );
          })}
        </ul>
      </section>

      {selected && (
        <section aria-label="Intensity" className="flex flex-col gap-2">
          <div className="flex justify-between text-sm">
            <span id="intensity-label" className="font-semibold">
              Intensity
            </span>
            <span className="tabular-nums text-muted" aria-hidden>
              {intensity}%
            </span>
          </div>
          <Slider.Root
            className="relative flex h-11 touch-none items-center select-none"
            min={INTENSITY.min}
            max={INTENSITY.max}
            step={INTENSITY.step}
            value={[intensity]}
            onValueChange={([v]) => v !== undefined && setIntensity(v)}
          >
            <Slider.Track className="relative h-2 grow rounded-full bg-surface-2">
              <Slider.Range className="absolute h-full rounded-full bg-primary" />
            </Slider.Track>
            <Slider.Thumb
              aria-labelledby="intensity-label"
              aria-valuetext={`${intensity}%`}
              className="block size-6 rounded-full border-2 border-primary bg-surface shadow focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-primary"
            />
          </Slider.Root>
        </section>
      )}

      <div className="flex flex-col gap-2">
        {/* One edit at a time: a Revert pressed while an apply renders was answered first, and the
            apply landing after it brought the filter back, against the last press. */}
        <Button size="lg" onClick={onApply} disabled={!photo || !selected} pending={busy}>
          {running.applying ? 'Processing...' : 'Apply Filter'}
        </Button>
        {photo.appliedFilter && (
          <Button variant="outline" onClick={onRevert} pending={busy}>
            <RotateCcw className="size-4" aria-hidden />
            Revert to original
          </Button>
        )}
      </div>
    </>
  );
}
