import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import type { UploadResponse } from '@contract/photos';
import { photosUploadedMessage, PHOTO_UPLOADED_MESSAGE } from '@domain/rewards';
import { toast } from '../../lib/toast';
import { announceReward, rewardsQueryOptions, statsQueryOptions } from '../rewards';
import { photosQueryOptions } from './photos-query';

/** The server takes at most this many files per request; larger selections go in several uploads. */
export const FILES_PER_UPLOAD = 20;

export interface UploadProgress {
  id: number;
  label: string;
  /** 0..1 of bytes sent. */
  progress: number;
}

/** POSTs files as multipart with XMLHttpRequest, whose upload events give a real progress bar. */
export function sendPhotos(
  files: File[],
  onProgress: (fraction: number) => void,
): Promise<{ status: number; body: UploadResponse | null }> {
  return new Promise((resolve, reject) => {
    const form = new FormData();
    for (const f of files) form.append('photos', f, f.name);
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/photos');
    xhr.withCredentials = true;
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      let body: UploadResponse | null;
      try {
        body = JSON.parse(xhr.responseText) as UploadResponse;
      } catch {
        body = null;
      }
      resolve({ status: xhr.status, body });
    };
    xhr.onerror = () => reject(new TypeError('Network error'));
    xhr.send(form);
  });
}

let nextId = 1;

/** Uploads selections in batches, tracks one progress bar per batch and toasts each outcome. */
export function useUploadPhotos() {
  const queryClient = useQueryClient();
  const [uploads, setUploads] = useState<UploadProgress[]>([]);

  const upload = useCallback(
    async (selected: File[]) => {
      for (let i = 0; i < selected.length; i += FILES_PER_UPLOAD) {
        const batch = selected.slice(i, i + FILES_PER_UPLOAD);
        const id = nextId++;
        const label = batch.length === 1 ? batch[0]!.name : `${batch.length} photos`;
        setUploads((u) => [...u, { id, label, progress: 0 }]);
        try {
          const { status, body } = await sendPhotos(batch, (progress) =>
            setUploads((u) => u.map((x) => (x.id === id ? { ...x, progress } : x))),
          );
          const uploaded = body?.uploaded ?? 0;
          if (uploaded > 0) {
            const failed = body?.results.filter((r) => !r.ok) ?? [];
            toast({
              title: uploaded === 1 ? PHOTO_UPLOADED_MESSAGE : photosUploadedMessage(uploaded),
              description: failed.length
                ? failed.map((f) => (f.ok ? '' : `${f.fileName}: ${f.message}`)).join(' ')
                : undefined,
              variant: failed.length ? 'default' : 'success',
            });
            // Only photos never uploaded before earn points; the server says which (null: no popup).
            const reward = body?.reward;
            if (reward) {
              announceReward({ type: 'upload', currentStreak: 0, ...reward });
              void queryClient.invalidateQueries({ queryKey: rewardsQueryOptions().queryKey });
              void queryClient.invalidateQueries({ queryKey: statsQueryOptions().queryKey });
            }
          } else {
            toast({
              title: 'Upload failed',
              description: body?.message ?? `The server answered ${status}.`,
              variant: 'destructive',
            });
          }
        } catch {
          toast({ title: 'Upload failed', description: 'Network error. Please try again.', variant: 'destructive' });
        } finally {
          setUploads((u) => u.filter((x) => x.id !== id));
          await queryClient.invalidateQueries({ queryKey: photosQueryOptions().queryKey });
        }
      }
    },
    [queryClient],
  );

  return { uploads, upload };
}
