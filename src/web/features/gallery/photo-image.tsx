import { useMemo, useState, type ImgHTMLAttributes } from 'react';
import { thumbHashToDataURL } from 'thumbhash';
import { cn } from '../../lib/cn';

function placeholderFor(hash: string | null | undefined): string | undefined {
  if (!hash) return undefined;
  try {
    const bytes = Uint8Array.from(atob(hash), (c) => c.charCodeAt(0));
    return thumbHashToDataURL(bytes);
  } catch {
    return undefined;
  }
}

/** An image that shows its thumbhash (a blurred sketch, a few dozen bytes) until the real bytes arrive. */
export function PhotoImage({
  thumbhash,
  className,
  imgClassName,
  alt,
  ...img
}: ImgHTMLAttributes<HTMLImageElement> & { thumbhash?: string | null; imgClassName?: string; alt: string }) {
  const placeholder = useMemo(() => placeholderFor(thumbhash), [thumbhash]);
  const [loadedSrc, setLoadedSrc] = useState<string | undefined>();
  const loaded = loadedSrc === img.src;
  return (
    <div
      className={cn('relative overflow-hidden bg-surface-2', className)}
      style={
        placeholder
          ? { backgroundImage: `url(${placeholder})`, backgroundSize: 'cover', backgroundPosition: 'center' }
          : undefined
      }
    >
      <img
        {...img}
        alt={alt}
        decoding="async"
        onLoad={() => setLoadedSrc(img.src)}
        className={cn('size-full transition-opacity duration-300', loaded ? 'opacity-100' : 'opacity-0', imgClassName)}
      />
    </div>
  );
}
