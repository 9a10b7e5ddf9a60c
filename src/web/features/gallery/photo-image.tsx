import { useEffect, useRef, useState, type ImgHTMLAttributes } from 'react';
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
 * The sketch is decoded after the image mounts, in a task of its own, and only if the image is not
 * already there (the page painted by the server, the browser's or the service worker's cache):
 * decoding it costs a few milliseconds per tile, and a grid's first render (a dozen tiles and more)
 * doing them all at once was one long task on a phone.
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
  const ref = useRef<HTMLImageElement>(null);
  const [placeholder, setPlaceholder] = useState<{ hash: string; url: string | undefined } | null>(null);
  useEffect(() => {
    if (!thumbhash) return;
    const timer = setTimeout(() => {
      if (!ref.current?.complete) setPlaceholder({ hash: thumbhash, url: placeholderFor(thumbhash) });
    }, 0);
    return () => clearTimeout(timer);
  }, [thumbhash]);
  const sketch = placeholder && placeholder.hash === thumbhash ? placeholder.url : undefined;
  const [loadedSrc, setLoadedSrc] = useState<string | undefined>();
  const loaded = loadedSrc === img.src;
  return (
    <div
      className={cn('relative overflow-hidden bg-surface-2', className)}
      style={
        sketch
          ? { backgroundImage: `url(${sketch})`, backgroundSize: 'cover', backgroundPosition: 'center' }
          : undefined
      }
    >
      <img
        {...img}
        ref={ref}
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
