import * as Dialog from '@radix-ui/react-dialog';
import { useQuery } from '@tanstack/react-query';
import { X } from 'lucide-react';
import { useRef, type ReactNode } from 'react';
import { formatSizeMb } from '@domain/format';
import { formatExposure, formatPlace, placeMapUrl } from '@domain/photo-details';
import { LoadFailed } from '../../components/ui/refresh-failed';
import { useReturnFocus } from '../../lib/use-return-focus';
import { photoInfoQueryOptions, type PhotoInfo } from './manage-photos';

const categoryLabel = (c: string) => c.replace(/_/g, ' ');
const dateTime = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

function rows(info: PhotoInfo): Array<[string, ReactNode]> {
  const place = formatPlace(info.place);
  const all: Array<[string, ReactNode | null]> = [
    ['Date taken', info.takenAt ? dateTime(info.takenAt) : null],
    ['Uploaded', dateTime(info.uploadedAt)],
    ['Camera', info.camera],
    ['Lens', info.lens],
    ['Exposure', formatExposure(info)],
    ['Dimensions', `${info.width} × ${info.height}`],
    [
      'Size',
      info.edited
        ? `${formatSizeMb(info.size)} (original ${formatSizeMb(info.originalSize)})`
        : formatSizeMb(info.size),
    ],
    [
      'Place',
      place && info.place ? (
        <a href={placeMapUrl(info.place)} target="_blank" rel="noreferrer" className="underline">
          {place}
        </a>
      ) : null,
    ],
    ['Category', info.category ? <span className="capitalize">{categoryLabel(info.category)}</span> : null],
    ['Tags', info.tags.length ? info.tags.join(', ') : null],
    ['File', info.fileName],
  ];
  return all.filter((r): r is [string, ReactNode] => r[1] !== null && r[1] !== '');
}

/**
 * The viewer's Info panel, a dialog over the photo: date taken, camera, lens, exposure,
 * dimensions, size, place (when the EXIF has it), category and tags. Rows without a value are left out.
 */
export function PhotoInfoDialog({
  photoId,
  open,
  onOpenChange,
}: {
  photoId: string;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  const info = useQuery({ ...photoInfoQueryOptions(photoId), enabled: open });
  // Opened by the viewer's Info button, not a Radix trigger: closing gives focus back to it.
  const returnFocus = useReturnFocus(open);
  // Where focus goes once a Try again is answered.
  const title = useRef<HTMLHeadingElement>(null);
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-[60] bg-black/40" />
        <Dialog.Content
          aria-describedby={undefined}
          onCloseAutoFocus={returnFocus}
          className="fixed inset-x-0 bottom-0 z-[61] mx-auto flex max-h-[80dvh] w-full max-w-[430px] flex-col gap-3 overflow-y-auto rounded-t-2xl bg-surface p-5 text-fg shadow-xl"
        >
          <div className="flex items-center justify-between">
            <Dialog.Title ref={title} tabIndex={-1} className="text-lg font-bold">
              Photo info
            </Dialog.Title>
            <Dialog.Close
              aria-label="Close info"
              className="grid size-11 place-items-center rounded-full hover:bg-surface-2"
            >
              <X className="size-5" aria-hidden />
            </Dialog.Close>
          </div>
          {info.isPending ? (
            <p className="text-sm text-muted">Loading...</p>
          ) : info.isError ? (
            // With Try again: closing the panel and opening it again was the only way to ask again.
            <LoadFailed query={info} fallback="Could not load the photo details." target={title} />
          ) : (
            <>
              <p className="font-semibold break-words">{info.data.name}</p>
              {info.data.description && <p className="text-sm text-muted">{info.data.description}</p>}
              <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-2 text-sm" data-testid="photo-info">
                {rows(info.data).map(([label, value]) => (
                  <div key={label} className="contents">
                    <dt className="text-muted">{label}</dt>
                    <dd className="min-w-0 break-words">{value}</dd>
                  </div>
                ))}
              </dl>
            </>
          )}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
