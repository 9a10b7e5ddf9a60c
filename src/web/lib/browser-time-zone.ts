import { TIME_ZONE_COOKIE } from '@contract/auth-values';

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

/**
 * Tells the server the browser's zone (a cookie on every request), so a page it paints shows dates
 * as the app does. Written at each start: the device's zone can change between visits.
 */
export function rememberTimeZone(zone = browserTimeZone()) {
  if (!zone) return;
  const secure = window.location.protocol === 'https:' ? '; Secure' : '';
  document.cookie = `${TIME_ZONE_COOKIE}=${encodeURIComponent(zone)}; Path=/; Max-Age=31536000; SameSite=Lax${secure}`;
}
