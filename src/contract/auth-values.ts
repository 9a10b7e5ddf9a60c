/**
 * A cookie the server sets whenever it knows a browser has no session (a page asked for without a
 * session cookie, a sign-out, an auth check answered 401) and clears at sign-in. Not httpOnly: the
 * app reads it and shows the signed-out screens without asking `GET /api/auth/user`, which could
 * only answer 401, an error every browser logs in the console. It carries no secret and grants
 * nothing: a forged or missing one changes only whether the app asks.
 */
export const SIGNED_OUT_COOKIE = 'eyevu_signed_out';

/**
 * The browser's IANA zone, written by the app at each start so that a page the server paints shows
 * a date as the app then shows it (the dashboard's 'Expires <date>'): the day of an instant depends
 * on the zone, and the server has no other way to know the browser's. Not a secret; read only for
 * display, checked as a zone Intl knows (else UTC).
 */
export const TIME_ZONE_COOKIE = 'eyevu_tz';
