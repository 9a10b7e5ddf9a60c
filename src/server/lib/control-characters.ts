/**
 * C0 and C1 control characters (NUL included). Text a client names things with (file names, and
 * from them photo names and download names) is stored and echoed in headers: PostgreSQL refuses a
 * NUL in text, and a line break would split a header. One class, so every cleaner removes the same.
 */
// eslint-disable-next-line no-control-regex -- control characters are what is matched
export const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;

export const withoutControlCharacters = (text: string): string => text.replace(CONTROL_CHARACTERS, '');
