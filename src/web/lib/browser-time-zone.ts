/**
 * The browser's IANA zone, sent at sign-in and registration: the server keeps it to decide the
 * user's calendar day (daily rewards). Undefined when the browser reports none.
 */
export function browserTimeZone(): string | undefined {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || undefined;
  } catch {
    return undefined;
  }
}
