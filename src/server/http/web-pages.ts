import { PRICING_SUBTITLE, PRICING_TITLE } from '@domain/plans';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { SESSION_COOKIE } from './session';

/**
 * The single page's HTML for each screen, with what that screen needs first already asked for.
 *
 * Without hints the phone waits for the main chunk, then the auth check, then the screen's chunk,
 * then its data, one after another. The page served for a path therefore carries, in <head>:
 * a `modulepreload` for the screen's lazy chunk and the chunks it imports (from Vite's build
 * manifest), and `preload as=fetch` for the auth check and, with a session cookie, the screen's
 * first API answers. The app's own fetches (credentials 'include', same URL) take over those
 * preloads, so the auth check starts before React boots without any inline script (the CSP
 * allows none). Without a cookie there is no session: the signed-in screens show the login.
 *
 * Every variant is built once at start (paths x signed in or not), compressed once, and
 * revalidated by its ETag (Cache-Control no-cache, so a new build is picked up at once).
 */

/** A screen's lazy modules (build manifest keys) and its first API answers. */
interface Screen {
  signedIn: string[];
  signedOut: string[];
  /** Fetched by the screen when signed in: URL exactly as the app asks for it. */
  data: string[];
}

const F = 'src/web/features';
const LOGIN = [`${F}/auth/login-page.tsx`];
/** The signed-in shell's own answers: the auth check goes for everyone, app status with a session. */
const AUTH_CHECK = '/api/auth/user';
const SHELL_DATA = ['/api/app-status'];

const signedInOnly = (modules: string[], data: string[] = []): Screen => ({
  signedIn: modules,
  signedOut: LOGIN,
  data,
});

/** Paths as the router in src/web/app/app.tsx has them; the query keys as the screens ask. */
const SCREENS: Record<string, Screen> = {
  '/': {
    signedIn: [`${F}/dashboard/dashboard-page.tsx`],
    signedOut: LOGIN,
    data: ['/api/activities', '/api/photos', '/api/photos/summary', '/api/subscription'],
  },
  '/gallery': signedInOnly([`${F}/gallery/gallery-page.tsx`], ['/api/photos/timeline?limit=120']),
  '/pricing': {
    signedIn: [`${F}/pricing/pricing-page.tsx`],
    signedOut: [`${F}/pricing/pricing-page.tsx`],
    data: ['/api/subscription'],
  },
  '/billing': signedInOnly([`${F}/billing/billing-page.tsx`]),
  '/settings': signedInOnly([`${F}/settings/settings-page.tsx`]),
  '/organizer': signedInOnly([`${F}/organizer/organizer-page.tsx`]),
  '/photo-editor': signedInOnly([`${F}/photo-editor/photo-editor-page.tsx`]),
  '/checkout': signedInOnly([`${F}/checkout/checkout-page.tsx`]),
  '/login': { signedIn: [], signedOut: LOGIN, data: [] },
  '/register': { signedIn: [], signedOut: [`${F}/auth/register-page.tsx`], data: [] },
  '/forgot-password': { signedIn: [], signedOut: [`${F}/auth/forgot-password-page.tsx`], data: [] },
};

/**
 * A screen's first content as static HTML, for screens whose largest paint needs no data (the
 * same markup and classes the screen renders, so nothing moves when React takes over). It
 * replaces the spinner between the `first-paint` markers of index.html, in
 * `<div id="first-paint">`: a bar shaped like the status bar (no clock, no controls: nothing a
 * user could press before the script runs) and the screen's `<main>` with its heading.
 * src/web/app/first-paint.tsx shows it again while the session check and the screen's chunk load.
 */
const STATUS_BAR_SHAPE =
  '<header class="sticky top-0 z-shell flex items-center justify-between gap-2 border-b border-border bg-surface/95 px-4 pt-[max(env(safe-area-inset-top),0.5rem)] pb-2 backdrop-blur">' +
  '<span class="min-h-8 w-14"></span><span class="text-base font-bold tracking-tight text-primary">Eyevu</span><span class="w-14"></span></header>';
const FIRST_CONTENT: Record<string, string> = {
  '/pricing':
    STATUS_BAR_SHAPE +
    '<main class="flex flex-col gap-5 p-4 pb-24"><div class="flex items-start justify-between gap-3"><div class="min-w-0">' +
    `<h1 class="text-2xl font-bold">${escapeHtml(PRICING_TITLE)}</h1><p class="text-sm text-muted">${escapeHtml(PRICING_SUBTITLE)}</p>` +
    '</div></div></main>',
};
const FIRST_PAINT = /<!-- first-paint -->[\s\S]*?<!-- \/first-paint -->/;

/** Every source module the pages name (build manifest keys), so a test can see they still exist. */
export const SCREEN_MODULES = [...new Set(Object.values(SCREENS).flatMap((s) => [...s.signedIn, ...s.signedOut]))];

interface ManifestChunk {
  file: string;
  imports?: string[];
  isEntry?: boolean;
}
type Manifest = Record<string, ManifestChunk>;

export interface WebPage {
  html: string;
  gzip: Buffer;
  br: Buffer;
  etag: string;
}

export interface WebPages {
  /** The page for a URL path; `signedIn` is whether the request carries a session cookie. */
  page(pathname: string, signedIn: boolean): WebPage;
  /** CSP sources (`'sha256-...'`) of the scripts the pages carry inline. */
  scriptHashes: string[];
}

/**
 * Small scripts that must run before the first paint, inlined: as files they hold the parser in
 * <head> for a round trip, and the browser fetches little else until the parser reaches <body>.
 * The CSP allows each by its hash only. The file stays for the service worker's copy of index.html.
 */
const INLINE_SCRIPTS = ['/theme-init.js'];

/** Reads dist/web/index.html and Vite's manifest (dist/web/.vite/manifest.json) once. */
export function loadWebPages(webDir: string): WebPages {
  const scriptHashes: string[] = [];
  let template = readFileSync(path.join(webDir, 'index.html'), 'utf8');
  for (const src of INLINE_SCRIPTS) {
    const tag = `<script src="${src}"></script>`;
    const file = path.join(webDir, src);
    if (!template.includes(tag) || !existsSync(file)) continue;
    const code = readFileSync(file, 'utf8');
    scriptHashes.push(`'sha256-${createHash('sha256').update(code).digest('base64')}'`);
    template = template.replace(tag, () => `<script>${code}</script>`);
  }
  const manifestPath = path.join(webDir, '.vite', 'manifest.json');
  const manifest: Manifest = existsSync(manifestPath) ? JSON.parse(readFileSync(manifestPath, 'utf8')) : {};
  const chunksOf = moduleChunks(manifest);
  const cache = new Map<string, WebPage>();

  return {
    scriptHashes,
    page(pathname, signedIn) {
      const key = Object.hasOwn(SCREENS, pathname) ? pathname : '';
      const cacheKey = `${key}\n${signedIn}`;
      let page = cache.get(cacheKey);
      if (!page) {
        const screen = SCREENS[key];
        const modules = screen ? (signedIn ? screen.signedIn : screen.signedOut) : [];
        const data = [AUTH_CHECK, ...(signedIn ? [...SHELL_DATA, ...(screen?.data ?? [])] : [])];
        const first = FIRST_CONTENT[key];
        const body = first
          ? template.replace(FIRST_PAINT, () => `<div id="first-paint" class="contents">${first}</div>`)
          : template;
        page = compressed(withHints(body, chunksOf(modules), data));
        cache.set(cacheKey, page);
      }
      return page;
    },
  };
}

/** The files to modulepreload for some lazy modules: theirs and their imports', minus the entry's. */
function moduleChunks(manifest: Manifest) {
  const entryFiles = new Set<string>();
  const walk = (key: string, into: Set<string>) => {
    const chunk = manifest[key];
    if (!chunk || into.has(chunk.file)) return;
    into.add(chunk.file);
    for (const imported of chunk.imports ?? []) walk(imported, into);
  };
  // index.html already modulepreloads the entry and everything it imports statically.
  for (const [key, chunk] of Object.entries(manifest)) if (chunk.isEntry) walk(key, entryFiles);
  return (modules: string[]) => {
    const files = new Set<string>();
    for (const m of modules) walk(m, files);
    return [...files].filter((f) => !entryFiles.has(f));
  };
}

function escapeHtml(s: string) {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

/**
 * The page paints its first frame from the HTML and the stylesheet alone (index.html), so the
 * scripts are fetched at low priority: the stylesheet goes first on a slow link, and no script
 * holds the first paint.
 */
const LOW = 'fetchpriority="low"';

function withHints(template: string, chunkFiles: string[], data: string[]): string {
  const links = [
    // Data first: the auth check gates every screen, and each answer is small.
    ...data.map((u) => `<link rel="preload" href="${escapeAttr(u)}" as="fetch" crossorigin="use-credentials" />`),
    ...chunkFiles.map((f) => `<link rel="modulepreload" ${LOW} crossorigin href="/${escapeAttr(f)}" />`),
  ];
  const page = template.replace(
    /<(script type="module"|link rel="modulepreload")(?![^>]*fetchpriority)/g,
    `<$1 ${LOW}`,
  );
  if (!links.length) return page;
  return page.replace('</head>', `  ${links.join('\n    ')}\n  </head>`);
}

function compressed(html: string): WebPage {
  const bytes = Buffer.from(html);
  return {
    html,
    gzip: gzipSync(bytes, { level: 9 }),
    br: brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
    etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`,
  };
}

export type PageHandler = (request: FastifyRequest, reply: FastifyReply) => FastifyReply;

/** Answers a page request: the variant for the path, compressed as the browser accepts. */
export function pageHandler(pages: WebPages): PageHandler {
  return (request, reply) => {
    // Only the cookie's presence: the page must not cost a database round trip, and a stale
    // cookie merely preloads answers that come back 401.
    const page = pages.page(request.url.split('?')[0]!, !!request.cookies[SESSION_COOKIE]);
    reply
      .header('Cache-Control', 'no-cache')
      .header('Vary', 'Accept-Encoding, Cookie')
      .header('ETag', page.etag)
      .type('text/html; charset=utf-8');
    if (request.headers['if-none-match'] === page.etag) return reply.status(304).send();
    const accept = String(request.headers['accept-encoding'] ?? '');
    if (/\bbr\b/.test(accept)) return reply.header('Content-Encoding', 'br').send(page.br);
    if (/\bgzip\b/.test(accept)) return reply.header('Content-Encoding', 'gzip').send(page.gzip);
    return reply.send(page.html);
  };
}
