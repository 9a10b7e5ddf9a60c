import { queryOptions, useMutation, useMutationState, useQueryClient } from '@tanstack/react-query';
import type { Photo } from '@contract/photos';
import type { EditResponse, FilterOption, PreviewResponse } from '@contract/filters';
import type { FilterId } from '@domain/filters';
import { apiRequest, errorMessage, errorStatus, getJson, PAYMENT_WAIT_MS } from '../../lib/api';
import { toast } from '../../lib/toast';
import { photosQueryOptions } from '../gallery';

const PHOTO_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether the address's `photoId` can name a photo: one of the server's ids, or 'demo'. The photo's
 * key is its URL path (`/api/photos/<id>`), so an id of '../auth/user' made this screen fetch, and
 * render as a photo, whatever same-origin address a link chose (and crash on it).
 */
export const isEditablePhotoId = (id: string) => id === 'demo' || PHOTO_ID.test(id);

/** The photo being edited (`GET /api/photos/:id`, 'demo' for the editor demo photo). Under '/api/photos'. */
export function editorPhotoQueryOptions(photoId: string) {
  return queryOptions<Photo>({ queryKey: ['/api/photos', photoId] });
}

/** The six filter options with a swatch of this photo each. */
export function filterOptionsQueryOptions(photoId: string) {
  return queryOptions<FilterOption[]>({
    queryKey: ['/api/photo-filters/available', photoId],
    queryFn: () => getJson(`/api/photo-filters/available?${new URLSearchParams({ photoId })}`),
  });
}

/**
 * An apply waits in the process's one filter thread behind every other user's (about a second
 * each), so a busy but healthy server may answer it (or a preview) after REQUEST_WAIT_MS: given up on then, it
 * said 'Filter Failed' while the edit went on to be made. It waits as long as the server may still
 * answer (past its own 60 s silence bound), as the payment requests do.
 */
export const APPLY_WAIT_MS = PAYMENT_WAIT_MS;

/**
 * A filtered preview (`POST /api/photo-filters/preview`), as a query so each (photo, filter,
 * intensity) is asked once and a late answer for an old choice never replaces the current one.
 */
export function filterPreviewQueryOptions(photoId: string, filterName: FilterId | null, intensity: number) {
  return queryOptions<PreviewResponse>({
    queryKey: ['/api/photo-filters/preview', photoId, filterName, intensity],
    // Rendered in the same filter thread as an apply, behind every other user's: it waits as long.
    queryFn: async () =>
      (
        await apiRequest(
          'POST',
          '/api/photo-filters/preview',
          { photoId, filterName, intensity },
          {},
          {
            waitMs: APPLY_WAIT_MS,
          },
        )
      ).json(),
    enabled: filterName !== null,
    staleTime: Infinity,
  });
}

/**
 * The outcome's toast is told here, not by the screen: an apply takes seconds on a large photo,
 * and a screen left meanwhile (Back, another photo) no longer hears its `mutate` callbacks, so a
 * refusal (Storage full) went unsaid and the user believed the edit was made.
 */
function useEditMutation(
  url: string,
  said: { success: string; failure: (err: unknown) => [string, string] },
  waitMs?: number,
) {
  const qc = useQueryClient();
  return useMutation({
    mutationKey: [url],
    mutationFn: async (body: { photoId: string; [field: string]: unknown }): Promise<EditResponse> =>
      (await apiRequest('POST', url, body, {}, { waitMs })).json(),
    onSuccess: () => {
      toast({ title: said.success, variant: 'success' });
      // The gallery, the dashboard and this screen all read under '/api/photos'.
      return qc.invalidateQueries({ queryKey: photosQueryOptions().queryKey });
    },
    onError: (err) => {
      const [title, description] = said.failure(err);
      toast({ title, description, variant: 'destructive' });
    },
  });
}

const APPLY_FAILED = 'Failed to apply filter. Please try again.';

const APPLY_URL = '/api/photo-filters/apply';
const REVERT_URL = '/api/photo-filters/revert';

export const useApplyFilter = () =>
  useEditMutation(
    APPLY_URL,
    {
      success: 'Filter Applied',
      // A refusal the user can act on (storage full, an apply running in another tab, the photo
      // gone, the limit) says why; a server fault or a lost connection gets the spec's line.
      failure: (err) => {
        const status = errorStatus(err);
        return ['Filter Failed', status !== undefined && status < 500 ? errorMessage(err, APPLY_FAILED) : APPLY_FAILED];
      },
    },
    APPLY_WAIT_MS,
  );
export const useRevertFilter = () =>
  useEditMutation(REVERT_URL, {
    success: 'Original restored',
    failure: (err) => ['Revert failed', errorMessage(err, 'Please try again.')],
  });

/**
 * The applies and reverts of this photo still on their way, also those an editor since left began:
 * a screen's own mutation starts idle, so coming back offered Apply Filter again, and a second press
 * was refused (409) while the first was still rendering.
 */
export function useEditsRunning(photoId: string | undefined): { applying: boolean; reverting: boolean } {
  const running = useMutationState({
    filters: {
      status: 'pending',
      predicate: (m) => photoId !== undefined && (m.state.variables as { photoId?: unknown })?.photoId === photoId,
    },
    select: (m) => m.options.mutationKey?.[0],
  });
  return { applying: running.includes(APPLY_URL), reverting: running.includes(REVERT_URL) };
}
