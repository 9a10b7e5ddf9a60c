import { smallThumbnailUrl } from '@contract/photos-values';
import { timelineDate, timelineRows } from '@domain/find';
import { formatDay, formatElapsed, formatSizeMb, formatTimeSaved } from '@domain/format';
import { avgPerDay, isAdSkipperPro, memberDays, RECENT_PHOTOS_LIMIT } from '@domain/insights';
import { isPhotoCategory } from '@domain/photo-categories';
import { pageTitle } from '@domain/page-titles';
import { PRICING_SUBTITLE, PRICING_TITLE } from '@domain/plans';
import { canonicalTimeZone } from '@domain/time-zone';
import { TIME_ZONE_COOKIE } from '@contract/auth-values';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { clearSignedOutMark, markSignedOut, sessionTokenOf } from './session';

/**
 * The single page's HTML for each screen, with what that screen needs first already asked for.
 *
 * Without hints the phone waits for the main chunk, then the auth check, then the screen's chunk,
 * then its data, one after another. The page served for a path therefore carries, in <head>:
 * a `modulepreload` for the screen's lazy chunk and the chunks it imports (from Vite's build
 * manifest), and, with a session cookie, `preload as=fetch` for the auth check and the screen's
 * first API answers. The app's own fetches (credentials 'include', same URL) take over those
 * preloads, so the auth check starts before React boots without any inline script (the CSP
 * allows none). Without a cookie there is no session: the page comes with the signed-out mark
 * (contract/auth-values.ts), so the app shows the login without asking, on every screen.
 *
 * Every variant is built once at start (paths x signed in or not), compressed once, and
 * revalidated by its ETag (Cache-Control no-cache, so a new build is picked up at once). The
 * exceptions are the signed-in gallery with photos and the signed-in dashboard: their pages show the
 * owner's own first screen, so they are made per request (`private`).
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
export const APP_STATUS = '/api/app-status';
const SHELL_DATA = [APP_STATUS];
/** The gallery's first answer, as its screen asks for it (photos-query.ts). */
export const GALLERY_FIRST_PAGE = '/api/photos/timeline?limit=120';

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
  '/gallery': signedInOnly([`${F}/gallery/gallery-page.tsx`], [GALLERY_FIRST_PAGE]),
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
 * `<div id="first-paint">`: the status bar and the screen's `<main>` with its heading.
 * src/web/app/first-paint.tsx shows it again while the session check and the screen's chunk load.
 */
const BAR_ICONS =
  '<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" class="lucide lucide-signal size-3.5 shrink-0" aria-hidden="true"><path d="M2 20h.01"></path><path d="M7 20v-4"></path><path d="M12 20v-8"></path><path d="M17 20V8"></path><path d="M22 4v16"></path></svg>' +
  '<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" class="lucide lucide-wifi size-3.5 shrink-0" aria-hidden="true"><path d="M12 20h.01"></path><path d="M2 8.82a15 15 0 0 1 20 0"></path><path d="M5 12.859a10 10 0 0 1 14 0"></path><path d="M8.5 16.429a5 5 0 0 1 7 0"></path></svg>' +
  '<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" class="lucide lucide-battery-full size-4 shrink-0" aria-hidden="true"><path d="M10 10v4"></path><path d="M14 10v4"></path><path d="M22 14v-4"></path><path d="M6 10v4"></path><rect x="2" y="6" width="16" height="12" rx="2"></rect></svg>';
/**
 * The status bar (src/web/app/shell/status-bar.tsx) as the app lays it out, its controls as shapes
 * of the same size (no clock yet, and nothing a user could press before the script runs). The bar
 * was once narrower on the right than the app's, so the product name moved ~35 px when the app
 * took over: a layout shift on every first load. `active` when the answers say so (the badge); a
 * bar painted without it (the static `/pricing`) still puts the name where the app's bar with it does.
 */
export function statusBarShape(active = false): string {
  return (
    '<header class="sticky top-0 z-shell flex items-center gap-2 border-b border-border bg-surface/95 px-4 pt-[max(env(safe-area-inset-top),0.5rem)] pb-2 backdrop-blur">' +
    '<span class="w-14 shrink-0 text-sm font-semibold tabular-nums"></span>' +
    '<span class="shrink-0 text-base font-bold tracking-tight text-primary">Eyevu</span>' +
    '<div class="flex min-w-0 flex-1 flex-wrap items-center justify-end-safe gap-1.5">' +
    (active
      ? '<span class="shrink-0 rounded-full bg-success px-2 py-0.5 text-xs font-semibold text-success-fg">Active</span>'
      : '') +
    '<span class="min-h-8 w-19 shrink-0 rounded-md border border-border bg-surface px-1 text-xs text-fg"></span>' +
    `<span class="flex h-4 max-w-fit min-w-0 grow basis-0 flex-wrap items-center justify-end gap-0.5 overflow-hidden text-muted" aria-hidden="true">${BAR_ICONS}</span>` +
    '</div></header>'
  );
}
const STATUS_BAR_SHAPE = statusBarShape();
/** By path (src/first-paint-parity.test.tsx holds each against the app's render). */
export const FIRST_CONTENT: Record<string, string> = {
  '/pricing':
    STATUS_BAR_SHAPE +
    // The header as PageHeader (components/ui/page-header.tsx) lays it out.
    '<main class="flex flex-col gap-5 p-4 pb-24"><div class="flex flex-wrap items-start justify-between gap-3"><div class="min-w-min flex-1">' +
    `<h1 class="text-2xl font-bold">${escapeHtml(PRICING_TITLE)}</h1><p class="text-sm text-muted">${escapeHtml(PRICING_SUBTITLE)}</p>` +
    '</div></div></main>',
};

/**
 * The first screen's first pictures inside the page, as `data:` URLs (each keeps its own URL in
 * `data-src`, and the app shows the same bytes from there: src/web/app/first-paint.tsx). Linked,
 * a picture is a request of its own that starts once the HTML has been read, and shares the link
 * with the scripts: on a phone's slow link the screen's largest paint (a thumbnail) came 1-1.5 s
 * after the first one. Inside the page it is painted with it. Only as many bytes as a few small
 * thumbnails (the first row of the gallery, the dashboard's four small ones): more would hold the
 * first paint itself back. The bytes are the picture's own route's answer to the page's request
 * (its cookie, so its owner check), never read from the store here.
 */
export type InlinePictures = ReadonlyMap<string, string>;
const NO_PICTURES: InlinePictures = new Map();
export const INLINE_PICTURE_BYTES = 32 * 1024;
const INLINE_TYPES = /^image\/(webp|jpeg|png|avif)$/;
/** A picture as its route answers the page's request (status 200 only), or null. */
export type PictureLookup = (url: string) => Promise<{ type: string; bytes: Buffer } | null>;

/**
 * `data:` URLs for the leading pictures of `urls` whose bytes fit in `budget` together; the first
 * one missing or too large ends the run, so pictures appear in the screen's order.
 */
export async function inlinePictures(
  urls: string[],
  lookup: PictureLookup,
  budget = INLINE_PICTURE_BYTES,
): Promise<InlinePictures> {
  const found = await Promise.all(urls.map((url) => lookup(url).catch(() => null)));
  const inline = new Map<string, string>();
  let left = budget;
  for (const [i, url] of urls.entries()) {
    const picture = found[i];
    if (!picture || !INLINE_TYPES.test(picture.type) || picture.bytes.length > left) break;
    left -= picture.bytes.length;
    inline.set(url, `data:${picture.type};base64,${picture.bytes.toString('base64')}`);
  }
  return inline;
}

/** An `<img>`'s source attributes: the picture inside the page when it is, its URL beside it. */
function pictureSrc(url: string, inline: InlinePictures) {
  const data = inline.get(url);
  return data ? `src="${data}" data-src="${escapeAttr(url)}"` : `src="${escapeAttr(url)}"`;
}

/** The URLs of the pictures a painted screen puts inside its page (see `inlinePictures`). */
export function galleryPictureUrls(page: FirstGalleryPage): string[] {
  return page.items.slice(0, GALLERY_COLUMNS).map((p) => p.thumbnailUrl);
}
export function dashboardPictureUrls(d: FirstDashboard): string[] {
  return d.photos
    .slice(0, RECENT_PHOTOS_LIMIT)
    .flatMap((p) => (p.thumbnailUrl ? [smallThumbnailUrl(p.thumbnailUrl)] : []));
}

/** What the gallery's first screen shows of each photo (fields of the timeline's first page). */
export interface PaintedPhoto {
  name: string;
  thumbnailUrl: string;
  takenAt: string | null;
  uploadedAt: string;
  size: number;
  favorite: boolean;
}
/** A signed-in user's first gallery page as `/api/photos/timeline?limit=120` answers it. */
export interface FirstGalleryPage {
  items: PaintedPhoto[];
  total: number | null;
  /** The app status, for the status bar's badge; none when it could not be read (no badge). */
  appStatus?: PaintedAppStatus | null;
}
/** The gallery's timeline rows on a phone's first screen (photo-grid.tsx: two columns, two rows). */
const GALLERY_COLUMNS = 2;
const GALLERY_FIRST_TILES = 2 * GALLERY_COLUMNS;
/** The gallery grid's geometry (photo-grid.tsx): month header height, gap, caption allowance. */
const MONTH_HEADER_PX = 40;
const TILE_GAP_PX = 12;
const CAPTION_SLACK_PX = 8;

/** A control's shape without the control: nothing to press before the script runs. */
const shape = (cls: string, label: string, withIcon = true) =>
  `<span class="${cls}" aria-hidden="true">${withIcon ? '<span class="size-4"></span>' : ''}${escapeHtml(label)}</span>`;

/**
 * The gallery's first screen for a signed-in owner (gallery-page.tsx, photo-grid.tsx): the header,
 * the note, the view switch and search field as shapes, then the first two rows of the timeline
 * with the real thumbnails (eager, high priority), so the largest paint needs no script. React
 * shows this again until the gallery's first answer renders (first-paint.tsx), then replaces it.
 */
export function galleryFirstContent(page: FirstGalleryPage, inline: InlinePictures = NO_PICTURES): string | null {
  const items = page.items;
  if (!items.length) return null;
  const rows = timelineRows(items.map(timelineDate), GALLERY_COLUMNS);
  let grid = '';
  for (const row of rows) {
    if (row.kind === 'header') {
      grid += `<h2 class="flex items-end pb-2 text-base font-semibold" style="height:${MONTH_HEADER_PX}px">${escapeHtml(row.label)}</h2>`;
      continue;
    }
    if (row.start >= GALLERY_FIRST_TILES) break;
    grid += `<div class="grid grid-cols-2" style="column-gap:${TILE_GAP_PX}px;margin-bottom:${TILE_GAP_PX + CAPTION_SLACK_PX}px">`;
    for (let i = row.start; i < row.start + GALLERY_COLUMNS; i++) {
      const p = items[i];
      if (i >= row.end || !p) {
        grid += '<div></div>';
        continue;
      }
      const heart = p.favorite
        ? '<svg aria-hidden="true" class="absolute right-2 bottom-2 size-5 fill-white text-white drop-shadow" width="24" height="24" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><path d="M2 9.5a5.5 5.5 0 0 1 9.591-3.676.56.56 0 0 0 .818 0A5.49 5.49 0 0 1 22 9.5c0 2.29-1.5 4-3 5.5l-5.492 5.313a2 2 0 0 1-3 .019L5 15c-1.5-1.5-3-3.2-3-5.5"/></svg>'
        : '';
      grid +=
        '<div class="flex min-w-0 flex-col gap-1 text-left"><div class="relative w-full">' +
        '<div class="relative overflow-hidden bg-surface-2 aspect-square w-full rounded-xl">' +
        `<img ${pictureSrc(p.thumbnailUrl, inline)} alt="${escapeAttr(p.name)}" loading="eager" fetchpriority="high" decoding="async" draggable="false" class="size-full opacity-100 object-cover">` +
        `</div>${heart}</div>` +
        `<span class="truncate text-sm font-medium">${escapeHtml(p.name)}</span>` +
        `<span class="text-xs text-muted">${escapeHtml(formatSizeMb(p.size))}</span></div>`;
    }
    grid += '</div>';
  }
  const total = page.total ?? items.length;
  const chip = 'inline-flex min-h-11 items-center gap-2 rounded-full border px-4 text-sm font-semibold';
  return (
    statusBarShape(page.appStatus?.isActive === true) +
    '<main class="flex flex-col gap-4 p-4 pb-24"><div class="flex flex-wrap items-start justify-between gap-3"><div class="min-w-min flex-1">' +
    `<h1 class="text-2xl font-bold">Photo Gallery</h1><p class="text-sm text-muted">${total} photos available</p></div>` +
    '<div class="flex shrink-0 gap-3">' +
    shape(
      'inline-flex min-h-11 items-center gap-2 rounded-xl border border-border bg-surface px-4 text-sm font-semibold',
      'Select',
    ) +
    shape(
      'inline-flex min-h-11 items-center gap-2 rounded-xl bg-primary px-4 text-sm font-semibold text-primary-fg',
      'Upload',
    ) +
    '</div></div><p class="flex items-start gap-2 rounded-xl bg-primary-soft p-3 text-sm"><span class="mt-0.5 size-4 shrink-0"></span>' +
    "<span>Note: a real app would access your device's photo gallery. Demo images are shown here, and you can upload your own photos" +
    '<span class="hidden sm:inline"> or drop them on this page</span>.</span></p>' +
    '<div class="flex gap-2" aria-hidden="true">' +
    shape(`${chip} border-primary bg-primary text-primary-fg`, 'All Photos') +
    shape(`${chip} border-border bg-surface text-fg`, 'Favorites') +
    '</div><div class="relative" aria-hidden="true"><span class="absolute top-1/2 left-3 size-4 -translate-y-1/2"></span>' +
    '<div class="flex min-h-11 w-full items-center rounded-xl border border-border bg-surface pr-11 pl-9 text-sm text-muted">Search: dog, 2024, food, iPhone...</div></div>' +
    `<div data-testid="first-paint-grid">${grid}</div></main>`
  );
}

/**
 * The answers the dashboard's first screen is painted from, besides the app status every painted
 * screen reads (`APP_STATUS`). Stats without the browser's offset: only its totals are painted, and
 * those do not depend on it.
 */
export const DASHBOARD_FIRST_SCREEN = {
  user: AUTH_CHECK,
  stats: '/api/stats?utcOffsetMinutes=0',
  photos: '/api/photos',
  summary: '/api/photos/summary',
  subscription: '/api/subscription',
} as const;
/** `/api/app-status` as it answers: the status bar's Active badge on every painted screen. */
export interface PaintedAppStatus {
  isActive: boolean;
  isMonitoring: boolean;
  activeSince: string | null;
  lastActivity: string | null;
}
/** What the dashboard's first screen shows, as its screen's own requests answer (dashboard-page.tsx). */
export interface FirstDashboard {
  user: { firstName: string; createdAt: string };
  stats: { totalPoints: number; adsSkipped: number; timeSaved: number };
  photos: { name: string; thumbnailUrl?: string | null; url: string; analyzed: boolean; category?: string | null }[];
  summary: { total: number; analyzed: number };
  subscription: { status: string; tier: string; endDate: string | null };
  appStatus: PaintedAppStatus;
}

/** Lucide's icons as the dashboard renders them (lucide-react's markup), so the script's paint matches. */
const icon = (name: string, cls: string, paths: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" class="lucide lucide-${name} ${cls}" aria-hidden="true">${paths}</svg>`;
const ICONS = {
  award:
    '<path d="m15.477 12.89 1.515 8.526a.5.5 0 0 1-.81.47l-3.58-2.687a1 1 0 0 0-1.197 0l-3.586 2.686a.5.5 0 0 1-.81-.469l1.514-8.526"></path><circle cx="12" cy="8" r="6"></circle>',
  'skip-forward':
    '<path d="M21 4v16"></path><path d="M6.029 4.285A2 2 0 0 0 3 6v12a2 2 0 0 0 3.029 1.715l9.997-5.998a2 2 0 0 0 .003-3.432z"></path>',
  clock: '<circle cx="12" cy="12" r="10"></circle><path d="M12 6v6l4 2"></path>',
  'trending-up': '<path d="M16 7h6v6"></path><path d="m22 7-8.5 8.5-5-5L2 17"></path>',
  crown:
    '<path d="M11.562 3.266a.5.5 0 0 1 .876 0L15.39 8.87a1 1 0 0 0 1.516.294L21.183 5.5a.5.5 0 0 1 .798.519l-2.834 10.246a1 1 0 0 1-.956.734H5.81a1 1 0 0 1-.957-.734L2.02 6.02a.5.5 0 0 1 .798-.519l4.276 3.664a1 1 0 0 0 1.516-.294z"></path><path d="M5 21h14"></path>',
  power: '<path d="M12 2v10"></path><path d="M18.4 6.6a9 9 0 1 1-12.77.04"></path>',
};
const CARD = 'rounded-2xl border border-border bg-surface p-4 shadow-sm';
const capitalize = (s: string) => (s ? s[0]!.toUpperCase() + s.slice(1) : s);

/**
 * The dashboard's first screen for a signed-in owner (dashboard-page.tsx, status-card.tsx): the
 * greeting, the stats, the plan and status cards and the recent photos with their real thumbnails
 * (parser-found, high priority), so the largest paint needs no script. Controls are shapes without
 * the control (nothing to press before the script runs); what lies below the first screen is left
 * to the script, which only adds to the bottom. React shows this again until the dashboard's
 * answers have all arrived (first-paint.tsx), then replaces it with the same layout.
 */
export function dashboardFirstContent(
  d: FirstDashboard,
  now: Date,
  inline: InlinePictures = NO_PICTURES,
  timeZone = 'UTC',
): string {
  const days = memberDays(d.user.createdAt, now);
  const { totalPoints, adsSkipped } = d.stats;
  const subscribed = d.subscription.status === 'active';
  const active = d.appStatus.isActive;
  const stat = (label: string, value: string, name: keyof typeof ICONS) =>
    '<div class="flex flex-col items-center gap-1 rounded-2xl border border-border bg-surface p-3">' +
    icon(name, 'size-5 text-primary', ICONS[name]) +
    `<p class="text-xl font-bold tabular-nums">${escapeHtml(value)}</p><p class="text-center text-xs text-muted">${label}</p></div>`;
  const plan = subscribed
    ? `<div><p class="font-bold">${escapeHtml(capitalize(d.subscription.tier))} Plan</p>` +
      `<p class="text-sm text-muted">Expires ${d.subscription.endDate ? escapeHtml(formatDay(d.subscription.endDate, timeZone)) : 'N/A'}</p></div>`
    : '<div><p class="font-bold">Free Plan</p><p class="text-sm text-muted">Limited features</p></div>';
  const since =
    active && d.appStatus.activeSince ? `<p>Active for ${formatElapsed(d.appStatus.activeSince, now)}</p>` : '';
  const last =
    active && d.appStatus.lastActivity
      ? `<p>Last activity: ${formatElapsed(d.appStatus.lastActivity, now)} ago</p>`
      : '';
  let photos = '';
  for (const p of d.photos.slice(0, RECENT_PHOTOS_LIMIT)) {
    const category = p.analyzed && p.category ? (isPhotoCategory(p.category) ? p.category : 'uncategorized') : null;
    photos +=
      '<li class="relative aspect-square overflow-hidden rounded-lg bg-surface-2">' +
      `<img ${pictureSrc(smallThumbnailUrl(p.thumbnailUrl) || p.url, inline)} alt="${escapeAttr(p.name)}" class="size-full object-cover" fetchpriority="high">` +
      (category
        ? `<span class="absolute inset-x-0.5 bottom-0.5 truncate rounded bg-black/60 px-1 text-[10px] text-white">${escapeHtml(category.replace(/_/g, ' '))}</span>`
        : '') +
      '</li>';
  }
  return (
    statusBarShape(active) +
    '<main class="flex flex-col gap-4 p-4 pb-6"><header class="flex items-start justify-between gap-3"><div class="min-w-0">' +
    `<h1 class="truncate text-2xl font-bold">Hi, ${escapeHtml(d.user.firstName || 'User')}</h1>` +
    `<p class="text-sm text-muted">Member for ${days} days • ${d.summary.total} photos</p></div>` +
    '<span class="inline-flex shrink-0 items-center gap-1 rounded-full bg-primary px-3 py-1 text-sm font-bold text-primary-fg">' +
    `${icon('award', 'size-4', ICONS.award)}<span aria-hidden="true">${totalPoints} pts</span>` +
    `<span class="sr-only">${totalPoints} points</span></span></header>` +
    (isAdSkipperPro(adsSkipped)
      ? `<section class="rounded-2xl border border-primary bg-primary-soft p-4 shadow-sm"><p class="font-bold">Ad Skipper Pro!</p><p class="text-sm">You've skipped ${adsSkipped} ads</p></section>`
      : '') +
    '<section aria-label="Your stats" class="grid grid-cols-3 gap-2">' +
    stat('Ads Skipped', String(adsSkipped), 'skip-forward') +
    stat('Time Saved', formatTimeSaved(d.stats.timeSaved), 'clock') +
    stat('Avg/Day', String(avgPerDay(totalPoints, days)), 'trending-up') +
    '</section>' +
    `<section class="${CARD}" aria-label="Plan"><div class="flex items-center justify-between gap-3"><div class="flex min-w-0 items-center gap-3">` +
    icon('crown', 'size-6 shrink-0 text-primary', ICONS.crown) +
    `${plan}</div>` +
    (subscribed
      ? ''
      : shape(
          'inline-flex min-h-11 items-center justify-center gap-2 rounded-xl px-4 text-sm font-semibold bg-primary text-primary-fg',
          'Upgrade',
          false,
        )) +
    '</div></section>' +
    `<section class="${CARD}"><div class="flex items-start justify-between gap-3"><div class="min-w-0">` +
    `<h2 class="text-lg font-bold">${active ? 'Eyevu Active' : 'Inactive'}</h2>` +
    `<p class="text-sm text-muted">${active ? 'Eyevu is running in the background' : 'Ad monitoring is off'}</p></div>` +
    `<span class="inline-flex items-center justify-center gap-2 rounded-xl font-semibold ${active ? 'border border-border bg-surface text-fg' : 'bg-primary text-primary-fg'} min-h-9 px-3 text-sm min-h-11" aria-hidden="true">` +
    `${icon('power', 'size-4', ICONS.power)}${active ? 'Deactivate' : 'Activate'}</span></div>` +
    `<div class="mt-3 flex flex-wrap gap-2 text-xs font-semibold"><span class="rounded-full px-2 py-0.5 ${active ? 'bg-success text-success-fg' : 'bg-surface-2 text-muted'}">${active ? 'Active' : 'Inactive'}</span>` +
    (d.appStatus.isMonitoring
      ? '<span class="rounded-full bg-primary-soft px-2 py-0.5 text-primary">Monitoring</span>'
      : '') +
    '</div>' +
    (since || last ? `<div class="mt-2 text-sm text-muted">${since}${last}</div>` : '') +
    '</section>' +
    `<section class="${CARD}"><div class="mb-3 flex items-center justify-between"><h2 class="text-lg font-bold">Recent Photos</h2>` +
    shape('min-h-11 content-center px-2 text-sm font-semibold text-primary', 'View All', false) +
    '</div>' +
    (photos ? `<ul class="mb-2 grid grid-cols-4 gap-2" data-testid="first-paint-photos">${photos}</ul>` : '') +
    `<p class="text-sm text-muted">${d.summary.total} total photos • ${d.summary.analyzed} analyzed</p></section></main>`
  );
}

const FIRST_PAINT = /<!-- first-paint -->[\s\S]*?<!-- \/first-paint -->/;
const TITLE = /<title>[^<]*<\/title>/;

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
  /** The page compressed for one encoding, made on first use and kept with the page. */
  encoded(encoding: 'br' | 'gzip'): Buffer;
  etag: string;
  /** Shows one user's own data (the painted gallery). */
  personal?: boolean;
}

export interface WebPages {
  /** The page for a URL path; `signedIn` is whether the request carries a session cookie. */
  page(pathname: string, signedIn: boolean): WebPage;
  /**
   * The signed-in gallery's page with its first screen painted from `first` (made per request:
   * it shows the user's own photos), or null when there is nothing to paint.
   */
  gallery(first: FirstGalleryPage, inline?: InlinePictures): WebPage | null;
  /** The signed-in dashboard's page with its first screen painted from `first` (made per request). */
  dashboard(first: FirstDashboard, now: Date, inline?: InlinePictures, timeZone?: string): WebPage;
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
  template = inlineStylesheets(template, webDir);
  const manifestPath = path.join(webDir, '.vite', 'manifest.json');
  const manifest: Manifest = existsSync(manifestPath) ? JSON.parse(readFileSync(manifestPath, 'utf8')) : {};
  const chunksOf = moduleChunks(manifest);
  const cache = new Map<string, WebPage>();
  // The title is the screen's (domain/page-titles.ts), as the app sets it once it runs: without it
  // every tab, history entry and screen reader's page read 'Eyevu' until then.
  const build = (key: string, signedIn: boolean, first: string | undefined, title: string) => {
    const screen = SCREENS[key];
    const modules = screen ? (signedIn ? screen.signedIn : screen.signedOut) : [];
    // Without a session cookie there is no session: the signed-out mark goes with the page and the
    // app does not ask (use-auth.ts), so a visitor's first visit logs no 401.
    const data = signedIn ? [AUTH_CHECK, ...SHELL_DATA, ...(screen?.data ?? [])] : [];
    const titled = template.replace(TITLE, () => `<title>${escapeHtml(title)}</title>`);
    const body = first
      ? titled.replace(FIRST_PAINT, () => `<div id="first-paint" class="contents">${first}</div>`)
      : titled;
    return withHints(body, chunksOf(modules), data);
  };

  return {
    scriptHashes,
    page(pathname, signedIn) {
      const key = Object.hasOwn(SCREENS, pathname) ? pathname : '';
      // Paths the table lacks share a page per title (a few: the login, Page not found, a screen
      // asked as '/Gallery/'), so the cache stays bounded whatever paths are asked.
      const title = pageTitle(pathname, signedIn);
      const cacheKey = `${key}\n${signedIn}\n${title}`;
      let page = cache.get(cacheKey);
      if (!page) {
        page = compressed(build(key, signedIn, FIRST_CONTENT[key], title));
        cache.set(cacheKey, page);
      }
      return page;
    },
    gallery(first, inline) {
      const content = galleryFirstContent(first, inline);
      // A few KB made for one answer: fast compression levels, not the cached pages' best ones.
      return content
        ? { ...compressed(build('/gallery', true, content, pageTitle('/gallery', true)), FAST), personal: true }
        : null;
    },
    dashboard(first, now, inline, timeZone) {
      return {
        ...compressed(
          build('/', true, dashboardFirstContent(first, now, inline, timeZone), pageTitle('/', true)),
          FAST,
        ),
        personal: true,
      };
    },
  };
}

/**
 * The app's stylesheet (one file, ~7 KB compressed) inside the page instead of linked: the first
 * frame then needs the HTML alone, not a second round trip for a render-blocking file (on a phone's
 * link that trip is the first paint's largest wait), and it is painted before the scripts have
 * arrived, whatever order the network returns them in. The CSP allows inline styles; the file
 * stays for the service worker's copy of index.html.
 */
function inlineStylesheets(template: string, webDir: string): string {
  return template.replace(/<link rel="stylesheet"[^>]*href="\/(assets\/[^"]+\.css)"[^>]*>/g, (tag, file: string) => {
    const full = path.join(webDir, file);
    if (!existsSync(full)) return tag;
    const css = readFileSync(full, 'utf8');
    return /<\/style/i.test(css) ? tag : `<style>${css}</style>`;
  });
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
const escapeAttr = (s: string) => escapeHtml(s).replace(/"/g, '&quot;');

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

const BEST = { gzip: 9, br: 11 };
const FAST = { gzip: 6, br: 5 };

/**
 * Compressed lazily, per encoding: a painted page is made for one answer, and compressing it both
 * ways cost about four times the page's own making (a browser asks for one).
 */
function compressed(html: string, level = BEST): WebPage {
  const bytes = Buffer.from(html);
  let br: Buffer | undefined;
  let gzip: Buffer | undefined;
  return {
    html,
    encoded: (encoding) =>
      encoding === 'br'
        ? (br ??= brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: level.br } }))
        : (gzip ??= gzipSync(bytes, { level: level.gzip })),
    etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`,
  };
}

export type PageHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/**
 * The signed-in user's first gallery page, asked of the app's own timeline route with the
 * request's cookie (its session check, ownership and first-page cache), or null when that route
 * does not answer 200 (no session, an error): the page is then the one without photos.
 */
export type FirstGalleryLookup = (cookie: string) => Promise<FirstGalleryPage | null>;
/** The same for the dashboard's first screen: null unless every answer it needs was 200. */
export type FirstDashboardLookup = (cookie: string) => Promise<FirstDashboard | null>;

/**
 * A painted page asks the app's own routes (one for the gallery, six for the dashboard) and is
 * compressed for one answer: several times a plain page's cost, and a page request is not rate
 * limited. So each session gets PAINTED_PAGES_PER_WINDOW painted pages per window; past that it
 * gets the plain page (the same screen, drawn by the script), never an error. Counted per process,
 * by the session cookie's hash, only when a page was painted (a stale or made-up cookie adds no
 * key); at most PAINT_KEYS sessions are remembered, the oldest dropped first.
 */
export const PAINTED_PAGES_PER_WINDOW = 120;
const PAINT_WINDOW_MS = 5 * 60_000;
const PAINT_KEYS = 20_000;

export class PaintBudget {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly opts: { max: number; windowMs: number; maxKeys: number; now: () => number } = {
      max: PAINTED_PAGES_PER_WINDOW,
      windowMs: PAINT_WINDOW_MS,
      maxKeys: PAINT_KEYS,
      now: () => Date.now(),
    },
  ) {}

  private static key(token: string) {
    return createHash('sha256').update(token).digest('base64url').slice(0, 22);
  }

  allows(token: string): boolean {
    const w = this.windows.get(PaintBudget.key(token));
    return !w || this.opts.now() - w.start >= this.opts.windowMs || w.count < this.opts.max;
  }

  count(token: string) {
    const key = PaintBudget.key(token);
    const now = this.opts.now();
    const w = this.windows.get(key);
    this.windows.delete(key);
    const next =
      w && now - w.start < this.opts.windowMs ? { start: w.start, count: w.count + 1 } : { start: now, count: 1 };
    this.windows.set(key, next);
    if (this.windows.size > this.opts.maxKeys) this.windows.delete(this.windows.keys().next().value!);
  }
}

/** Answers a page request: the variant for the path, compressed as the browser accepts. */
export function pageHandler(
  pages: WebPages,
  opts: {
    firstGallery?: FirstGalleryLookup;
    firstDashboard?: FirstDashboardLookup;
    /** The painted screen's pictures as their routes answer the page's cookie (inlined when small). */
    pictures?: (cookie: string) => PictureLookup;
    now?: () => Date;
    paintBudget?: PaintBudget;
  } = {},
): PageHandler {
  const budget = opts.paintBudget ?? new PaintBudget();
  return async (request, reply) => {
    const [pathname, search] = request.url.split('?') as [string, string | undefined];
    // Other pages need only the cookie's presence: no database round trip, and a stale cookie
    // merely preloads answers that come back 401.
    const token = sessionTokenOf(request);
    const signedIn = !!token;
    const mayPaint = !!token && !search && budget.allows(token);
    let page: WebPage | null = null;
    const inlineFor = (urls: string[]) =>
      opts.pictures ? inlinePictures(urls, opts.pictures(String(request.headers.cookie ?? ''))) : NO_PICTURES;
    // The gallery's plain view (not favorites, not an album) shows the timeline's first page.
    if (pathname === '/gallery' && mayPaint && opts.firstGallery) {
      const first = await opts.firstGallery(String(request.headers.cookie ?? '')).catch((err: unknown) => {
        request.log.warn({ err }, 'gallery first paint: no first page');
        return null;
      });
      if (first) page = pages.gallery(first, await inlineFor(galleryPictureUrls(first)));
    }
    // The dashboard (no query: a reset link or a payment return is handled by the script).
    if (pathname === '/' && mayPaint && opts.firstDashboard) {
      const first = await opts.firstDashboard(String(request.headers.cookie ?? '')).catch((err: unknown) => {
        request.log.warn({ err }, 'dashboard first paint: no first screen');
        return null;
      });
      // Its dates in the browser's zone, as the app will show them (UTC until the app has said).
      const zone = canonicalTimeZone(String(request.cookies[TIME_ZONE_COOKIE] ?? '')) ?? undefined;
      if (first)
        page = pages.dashboard(first, opts.now?.() ?? new Date(), await inlineFor(dashboardPictureUrls(first)), zone);
    }
    if (page && token) budget.count(token);
    page ??= pages.page(pathname, signedIn);
    // Set here as well as by sign-out: the first visit, and any visit after the session cookie
    // expired in the browser; dropped when a session cookie is back (a sign-in in another tab).
    if (signedIn) clearSignedOutMark(request, reply);
    else markSignedOut(request, reply);
    reply
      // A painted gallery or dashboard shows the owner's data: never kept by a shared cache.
      .header('Cache-Control', page.personal ? 'private, no-cache' : 'no-cache')
      .header('Vary', 'Accept-Encoding, Cookie')
      .header('ETag', page.etag)
      .type('text/html; charset=utf-8');
    if (request.headers['if-none-match'] === page.etag) return reply.status(304).send();
    const accept = String(request.headers['accept-encoding'] ?? '');
    if (/\bbr\b/.test(accept)) return reply.header('Content-Encoding', 'br').send(page.encoded('br'));
    if (/\bgzip\b/.test(accept)) return reply.header('Content-Encoding', 'gzip').send(page.encoded('gzip'));
    return reply.send(page.html);
  };
}
