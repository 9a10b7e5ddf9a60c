/**
 * The document title of each route: browser tabs, history and a screen reader's first words on a
 * page tell screens apart by it (WCAG 2.4.2). The server writes it into the page it serves for a
 * path and the app sets the same one, so the title does not change when the app takes over.
 */
export const PRODUCT_NAME = 'Eyevu';

/** Screen names as the spec calls them (its headings where it gives one). */
const SIGNED_IN: Record<string, string> = {
  '/': 'Dashboard',
  '/gallery': 'Photo Gallery',
  '/billing': 'Billing & Subscription',
  '/pricing': 'Pricing',
  '/settings': 'Settings',
  '/organizer': 'Photo Organizer',
  '/photo-editor': 'Photo Editor',
  '/checkout': 'Checkout',
  // Signed in, the signed-out screens send the user home.
  '/login': 'Dashboard',
  '/register': 'Dashboard',
  '/forgot-password': 'Dashboard',
};

const SIGN_IN = 'Sign In';
const SIGNED_OUT: Record<string, string> = {
  '/': SIGN_IN,
  '/login': SIGN_IN,
  '/register': 'Create Account',
  '/forgot-password': 'Forgot Password',
  '/pricing': 'Pricing',
};

const SIGNED_IN_ONLY = ['/gallery', '/billing', '/settings', '/organizer', '/photo-editor', '/checkout'];

/**
 * Signed out, a signed-in screen (or a path below one) shows the login screen: the router
 * (src/web/app/app.tsx) and the title both ask this.
 */
export function isSignedInOnlyPath(pathname: string): boolean {
  const key = routeKey(pathname);
  return SIGNED_IN_ONLY.some((p) => key === p || key.startsWith(p + '/'));
}

export const NOT_FOUND_TITLE = 'Page not found';

/**
 * The router matches paths case-insensitively and with or without one trailing slash (wouter), so
 * '/Gallery/' is the gallery: the same here.
 */
function routeKey(pathname: string): string {
  const lower = pathname.toLowerCase();
  return lower.length > 1 && lower.endsWith('/') ? lower.slice(0, -1) : lower;
}

/** The screen name shown for a path. */
export function screenTitle(pathname: string, signedIn: boolean): string {
  const key = routeKey(pathname);
  const table = signedIn ? SIGNED_IN : SIGNED_OUT;
  if (Object.hasOwn(table, key)) return table[key]!;
  if (!signedIn && isSignedInOnlyPath(key)) return SIGN_IN;
  return NOT_FOUND_TITLE;
}

/** '<Screen> - Eyevu'. */
export function pageTitle(pathname: string, signedIn: boolean): string {
  return `${screenTitle(pathname, signedIn)} - ${PRODUCT_NAME}`;
}
