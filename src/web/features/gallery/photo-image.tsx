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

/**
 * An image that shows its thumbhash (a blurred sketch, a few dozen bytes) until the real bytes arrive.
 * `priority` for the first screen's images: fetched at once and at high priority, and shown as soon
 * as they are decoded, without the fade (a fading image counts as painted only once it is visible).
 */
export function PhotoImage({
  thumbhash,
  className,
  imgClassName,
  alt,
  priority = false,
  ...img
}: ImgHTMLAttributes<HTMLImageElement> & {
  thumbhash?: string | null;
  imgClassName?: string;
  alt: string;
  priority?: boolean;
}) {
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
        {...(priority && { loading: 'eager', fetchPriority: 'high' })}
        alt={alt}
        decoding="async"
        onLoad={() => setLoadedSrc(img.src)}
        className={cn(
          'size-full',
          !priority && 'transition-opacity duration-300',
          priority || loaded ? 'opacity-100' : 'opacity-0',
          imgClassName,
        )}
      />
    </div>
  );
}
