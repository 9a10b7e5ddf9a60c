/// <reference types="vite/client" />
import { cn } from '../../lib/cn';

/**
 * Emoji drawn from SVG files shipped with the app (Twemoji, CC BY 4.0: see NOTICE), so they show
 * on machines without an emoji font, where the characters render as empty boxes. Files are named
 * by code points without the variation selector (`1f436.svg`, `2b50.svg`); an emoji without a
 * file falls back to the character.
 */
const FILES = import.meta.glob<string>('../../assets/emoji/*.svg', { eager: true, query: '?url', import: 'default' });

export function emojiFileName(emoji: string): string {
  return [...emoji]
    .map((c) => c.codePointAt(0)!.toString(16))
    .filter((cp) => cp !== 'fe0f')
    .join('-');
}

export function emojiUrl(emoji: string): string | undefined {
  return FILES[`../../assets/emoji/${emojiFileName(emoji)}.svg`];
}

/**
 * One emoji at the surrounding text size. Decorative by default (hidden from assistive
 * technology, as the character was with `aria-hidden`); pass `label` when it carries meaning.
 */
export function Emoji({ emoji, label, className }: { emoji: string; label?: string; className?: string }) {
  const src = emojiUrl(emoji);
  const a11y = label ? { role: 'img', 'aria-label': label } : { 'aria-hidden': true };
  if (!src) {
    return (
      <span {...a11y} className={className}>
        {emoji}
      </span>
    );
  }
  return (
    <img
      src={src}
      alt={label ?? ''}
      {...(label ? {} : { 'aria-hidden': true })}
      draggable={false}
      data-emoji={emoji}
      className={cn('inline-block size-[1em] select-none align-[-0.125em]', className)}
    />
  );
}
