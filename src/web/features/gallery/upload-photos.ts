import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useCallback, useSyncExternalStore } from 'react';
import type { UploadResponse, UploadReward } from '@contract/photos';
import { photosUploadedMessage, PHOTO_UPLOADED_MESSAGE, uploadRewardMessage } from '@domain/rewards';
import { toast } from '../../lib/toast';
import { userQueryOptions } from '../auth';
import { announceReward, rewardsQueryOptions, statsQueryOptions } from '../rewards';
import { refreshLibrary } from './photos-query';

/** The server takes at most this many files per request; larger selections go in several uploads. */
export const FILES_PER_UPLOAD = 20;

/** The status the server refuses a photo with when the Free plan's photo limit is reached. */
const PLAN_LIMIT_STATUS = 403;
export const NETWORK_ERROR_MESSAGE = 'Network error. Please try again.';

export interface UploadProgress {
  id: number;
  label: string;
  /** 0..1 of bytes sent. */
  progress: number;
}

/**
 * An upload that has neither sent a byte nor had a byte of its answer for this long is given up as
 * a lost connection. Its whole length is not bounded (20 photos on a slow link take minutes, and
 * their bar moves all along), only its silence: a connection that died without the browser noticing
 * (a phone between networks) or a proxy holding it left the bar where it stopped, the page asking
 * before it was left, and the rest of the selection unsent, for ever. The server answers within its
 * own 60 s silence bound after the last byte, so a healthy upload never meets this.
 */
export const UPLOAD_STALL_MS = 90_000;

/** POSTs files as multipart with XMLHttpRequest, whose upload events give a real progress bar. */
export function sendPhotos(
  files: File[],
  onProgress: (fraction: number) => void,
): Promise<{ status: number; body: UploadResponse | null }> {
  return new Promise((resolve, reject) => {
    const form = new FormData();
    for (const f of files) form.append('photos', f, f.name);
    const xhr = new XMLHttpRequest();
    let stalled: ReturnType<typeof setTimeout> | undefined;
    const watch = () => {
      clearTimeout(stalled);
      stalled = setTimeout(() => xhr.abort(), UPLOAD_STALL_MS);
    };
    xhr.open('POST', '/api/photos');
    xhr.withCredentials = true;
    xhr.upload.onprogress = (e) => {
      watch();
      if (e.lengthComputable && e.total > 0) onProgress(e.loaded / e.total);
    };
    // The answer arriving (a large one may come in several parts).
    xhr.onprogress = watch;
    xhr.onload = () => {
      clearTimeout(stalled);
      let body: UploadResponse | null;
      try {
        body = JSON.parse(xhr.responseText) as UploadResponse;
      } catch {
        body = null;
      }
      resolve({ status: xhr.status, body });
    };
    xhr.onerror = () => {
      clearTimeout(stalled);
      reject(new TypeError('Network error'));
    };
    xhr.onabort = () => {
      clearTimeout(stalled);
      reject(new TypeError('Network error'));
    };
    xhr.send(form);
    watch();
  });
}

/*
 * Uploads in flight live here, not in the gallery's state: an upload goes on when the user opens
 * another screen (its outcome is a toast anywhere), and the gallery shows its progress again on
 * the way back. While any is in flight, leaving the page asks first: a closed tab ends the upload
 * with no word, and the user would not know which photos arrived.
 */
let inFlight: readonly UploadProgress[] = [];
const listeners = new Set<() => void>();

function askBeforeLeaving(event: BeforeUnloadEvent) {
  event.preventDefault();
  // Older browsers ask only when a return value is set.
  event.returnValue = '';
}

function setInFlight(next: readonly UploadProgress[]) {
  const was = inFlight.length > 0;
  inFlight = next;
  const is = inFlight.length > 0;
  if (is && !was) window.addEventListener('beforeunload', askBeforeLeaving);
  if (!is && was) window.removeEventListener('beforeunload', askBeforeLeaving);
  listeners.forEach((l) => l());
}

const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => listeners.delete(l);
};

let nextId = 1;

/**
 * A refusal without the server's words: a proxy's page in front of it (its body limit, the server
 * restarting behind it). It was shown as 'The server answered 502.', a status code to the user.
 */
function wholeRefusalMessage(status: number): string {
  if (status === 413) return 'These photos are too large to send at once. Please try fewer at a time.';
  return 'The upload could not be completed. Please try again.';
}

const namesOf = (files: File[]) => files.map((f) => f.name);

/** The account signed in in this tab, as the app knows it (null when signed out). */
const accountOf = (queryClient: QueryClient) => queryClient.getQueryData(userQueryOptions().queryKey)?.user.id ?? null;

/** A list of names, the first few in full: 'a.jpg, b.jpg, c.jpg and 4 more'. */
function listOf(names: string[]): string {
  const SHOWN = 3;
  if (names.length <= SHOWN + 1) return names.join(', ');
  return `${names.slice(0, SHOWN).join(', ')} and ${names.length - SHOWN} more`;
}

/** The rewards of a selection's batches as one, worded as the server words one request's. */
function combined(rewards: UploadReward[]): UploadReward | null {
  if (rewards.length <= 1) return rewards[0] ?? null;
  const rewardedPhotos = rewards.reduce((s, r) => s + r.rewardedPhotos, 0);
  const newAchievements = rewards.flatMap((r) => r.newAchievements);
  return {
    points: rewards.reduce((s, r) => s + r.points, 0),
    rewardedPhotos,
    newAchievements,
    message: uploadRewardMessage(rewardedPhotos, newAchievements.length),
  };
}

/**
 * Sends one selection, in requests of FILES_PER_UPLOAD, behind one progress bar, and says what
 * happened to all of it in one toast once it is over: how many photos arrived, and each reason a
 * photo did not with the files it applies to (a batch's toast would be replaced by the next
 * batch's seconds later, and a refusal repeated for each file filled the toast). After the plan's
 * limit, a lost connection or a refused request, the rest is not sent: it would be refused too,
 * or, for the limit, after its whole bytes had been sent for nothing.
 */
export async function uploadPhotos(queryClient: QueryClient, selected: File[]) {
  if (!selected.length) return;
  // An upload outlives its screen, the login screen included: once another account is signed in
  // here (a sign-out, then someone else's sign-in), the rest of the selection would be stored in
  // that account, and its outcome (the first one's file names and points) shown to its user.
  const owner = accountOf(queryClient);
  const sameAccount = () => accountOf(queryClient) === owner;
  const id = nextId++;
  const label = selected.length === 1 ? selected[0]!.name : `${selected.length} photos`;
  // Progress by bytes across the batches (by files when every file is empty).
  const bytes = (files: File[]) => files.reduce((s, f) => s + f.size, 0);
  const weight = bytes(selected) > 0 ? bytes : (files: File[]) => files.length;
  const total = weight(selected);
  setInFlight([...inFlight, { id, label, progress: 0 }]);
  const progress = (value: number) => setInFlight(inFlight.map((u) => (u.id === id ? { ...u, progress: value } : u)));

  let uploaded = 0;
  /** Reasons in the order first met, each with the files it refused. */
  const refusals = new Map<string, string[]>();
  const refuse = (message: string, names: string[]) =>
    refusals.set(message, [...(refusals.get(message) ?? []), ...names]);
  let sent = 0;
  const rewards: UploadReward[] = [];
  try {
    for (let i = 0; i < selected.length; i += FILES_PER_UPLOAD) {
      if (!sameAccount()) break;
      const batch = selected.slice(i, i + FILES_PER_UPLOAD);
      const rest = namesOf(selected.slice(i + FILES_PER_UPLOAD));
      let stop: string | null = null;
      try {
        const { status, body } = await sendPhotos(batch, (f) => progress((sent + f * weight(batch)) / total));
        const results = Array.isArray(body?.results) ? body.results : [];
        if (results.length) {
          uploaded += body?.uploaded ?? 0;
          for (const r of results) if (!r.ok) refuse(r.message, [r.fileName]);
          const limit = results.find((r) => !r.ok && r.status === PLAN_LIMIT_STATUS);
          if (limit && !limit.ok) stop = limit.message;
          // Only photos never uploaded before earn points; the server says which (null: no popup).
          const reward = body?.reward;
          if (reward) {
            rewards.push(reward);
            void queryClient.invalidateQueries({ queryKey: rewardsQueryOptions().queryKey });
            void queryClient.invalidateQueries({ queryKey: statsQueryOptions().queryKey });
          }
        } else {
          // Refused as a whole (signed out, too many at once, a proxy's limit): the rest would be too.
          stop = body?.message || wholeRefusalMessage(status);
          refuse(stop, namesOf(batch));
        }
      } catch {
        // Some of this batch may have arrived before the connection went: the gallery's refresh shows which.
        stop = NETWORK_ERROR_MESSAGE;
        refuse(stop, namesOf(batch));
      } finally {
        sent += weight(batch);
        // Each batch's photos show as they arrive, and are counted as waiting for analysis.
        await refreshLibrary(queryClient);
      }
      if (stop !== null) {
        if (rest.length) refuse(stop, rest);
        break;
      }
    }
  } finally {
    setInFlight(inFlight.filter((u) => u.id !== id));
  }

  if (!sameAccount()) return;
  // The points of the whole selection in one popup beside its one toast (a batch's '+25 pts 5 photos
  // uploaded!' beside '25 photos uploaded!' read as a second, smaller count).
  const reward = combined(rewards);
  if (reward) announceReward({ type: 'upload', currentStreak: 0, ...reward });
  const reasons = [...refusals].map(([message, names]) => `${listOf(names)}: ${message}`);
  toast({
    title: uploaded === 0 ? 'Upload failed' : uploaded === 1 ? PHOTO_UPLOADED_MESSAGE : photosUploadedMessage(uploaded),
    description: reasons.length ? reasons.join(' ') : undefined,
    variant: uploaded === 0 ? 'destructive' : reasons.length ? 'default' : 'success',
  });
}

/** The uploads in flight (anywhere in the app) and the function that starts one. */
export function useUploadPhotos() {
  const queryClient = useQueryClient();
  const uploads = useSyncExternalStore(subscribe, () => inFlight);
  const upload = useCallback((files: File[]) => uploadPhotos(queryClient, files), [queryClient]);
  return { uploads, upload };
}
