/**
 * Text with nothing to see: spaces of any kind, control and format characters (a zero-width
 * space, a direction mark, a word joiner) and the blank letters (Hangul fillers, the blank Braille
 * pattern) alone. JavaScript's `trim` keeps all but the spaces, so such a name passed as given and
 * was shown as nothing. Zod-free, so the web client can load it without the contract's schemas.
 */
export const isBlankText = (text: string) => /^[\s\p{Z}\p{Cc}\p{Cf}\u115F\u1160\u3164\uFFA0\u2800]*$/u.test(text);
