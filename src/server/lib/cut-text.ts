/**
 * The first `max` UTF-16 units of `text`, less a character's first half left at the end: a cut
 * through an emoji (or any character past U+FFFF) left a lone surrogate, which
 * `encodeURIComponent` refuses (every download of the photo answered a 500), PostgreSQL stores as
 * U+FFFD in text, and refuses in jsonb (written '\ud83d' by JSON.stringify: the upload answered 500).
 */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}
