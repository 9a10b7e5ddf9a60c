import { useQuery } from '@tanstack/react-query';
import { Images } from 'lucide-react';
import { useRef, useState } from 'react';
import type { SimilarPhotos as SimilarPhotosAnswer } from '@contract/find';
import { LoadFailed } from '../../components/ui/refresh-failed';
import { slowRead } from '../../lib/api';
import { cn } from '../../lib/cn';
import { PhotoImage } from './photo-image';
import type { Photo } from '@contract/photos';

/**
 * "Similar photos" in the viewer: a button that lists the owner's photos that look most like the
 * current one (`GET /api/photos/:id/similar`); choosing one shows it in the viewer. Asked for only
 * when opened, so paging through photos costs nothing.
 */
export function SimilarPhotos({ photoId, onShow }: { photoId: string; onShow: (photo: Photo) => void }) {
  const [open, setOpen] = useState(false);
  const query = useQuery<SimilarPhotosAnswer>({
    queryKey: ['/api/photos', photoId, 'similar'],
    enabled: open,
    staleTime: 60_000,
    meta: slowRead,
  });
  const items = query.data?.items ?? [];
  // Where focus goes once a Try again is answered: the toggle stays on screen throughout, and the
  // photos it brought are the next stop after it.
  const toggle = useRef<HTMLButtonElement>(null);
  return (
    <div className="px-4 pt-2">
      <button
        ref={toggle}
        type="button"
        aria-expanded={open}
        onClick={() => setOpen((o) => !o)}
        className={cn(
          'inline-flex min-h-11 items-center gap-2 rounded-full px-3 text-sm font-semibold hover:bg-white/10',
          open && 'bg-white/10',
        )}
      >
        <Images className="size-4" aria-hidden />
        Similar photos
      </button>
      {open && (
        <div className="pt-2" data-testid="similar-photos">
          {query.isPending ? (
            <p className="text-sm text-white/70">Looking for similar photos...</p>
          ) : query.isError ? (
            // With Try again: closing the row and opening it again was the only way to ask again. The
            // viewer is black in every theme: its reason in the dark themes' red (the light themes'
            // reads at 3:1 on black).
            <LoadFailed
              query={query}
              fallback="Could not look for similar photos."
              target={toggle}
              className="[--danger:#f87171]"
            />
          ) : items.length === 0 ? (
            <p className="text-sm text-white/70">No similar photos</p>
          ) : (
            <ul className="flex gap-2 overflow-x-auto" aria-label="Similar photos">
              {items.map((p) => (
                <li key={p.id} className="shrink-0">
                  <button
                    type="button"
                    onClick={() => onShow(p)}
                    aria-label={`Show similar photo ${p.name}`}
                    className="block size-14 overflow-hidden rounded-lg border-2 border-transparent hover:border-white"
                  >
                    <PhotoImage
                      src={p.thumbnailUrl}
                      alt=""
                      thumbhash={p.thumbhash}
                      className="size-full"
                      imgClassName="object-cover"
                    />
                  </button>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  );
}
