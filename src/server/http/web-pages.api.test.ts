import type { FastifyInstance } from 'fastify';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDay } from '@domain/format';
import { buildApp } from '../app';
import { createTestDatabase, signUp, testConfig, type TestDatabase } from '../test/harness';
import { postPhotos } from '../test/multipart';
import {
  INLINE_PICTURE_BYTES,
  inlinePictures,
  PaintBudget,
  PAINTED_PAGES_PER_WINDOW,
  SCREEN_MODULES,
  type PictureLookup,
} from './web-pages';

/**
 * The single page as served per path: the screen's chunks and first answers preloaded, the theme
 * script inline and allowed by its hash in the CSP, no-cache with an ETag. A built client shaped
 * as Vite writes it (index.html with the entry's tags, .vite/manifest.json, theme-init.js).
 */
const THEME_INIT = "(function () {\n  document.documentElement.dataset.theme = 'purple';\n})();\n";
const INDEX_HTML = `<!doctype html>
<html lang="en">
  <head>
    <title>Eyevu</title>
    <script src="/theme-init.js"></script>
    <script type="module" crossorigin src="/assets/index-E1.js"></script>
    <link rel="modulepreload" crossorigin href="/assets/button-B1.js">
    <link rel="stylesheet" crossorigin href="/assets/index-C1.css">
  </head>
  <body><div id="root"><!-- first-paint --><div class="shell">Checking your session</div><!-- /first-paint --></div></body>
</html>
`;
const CSS = '.shell{display:grid}';
/** The signed-out mark's Set-Cookie, if the answer sets or clears it. */
function markOf(res: { headers: Record<string, unknown> }) {
  const set = res.headers['set-cookie'];
  return ([] as string[])
    .concat((set as string | string[] | undefined) ?? [])
    .find((c) => c.startsWith('eyevu_signed_out='));
}
const F = 'src/web/features';
const MANIFEST = {
  'index.html': { file: 'assets/index-E1.js', isEntry: true, imports: ['_button-B1.js'] },
  '_button-B1.js': { file: 'assets/button-B1.js' },
  '_gallery-G1.js': { file: 'assets/gallery-G1.js', imports: ['_button-B1.js', 'index.html'] },
  [`${F}/gallery/gallery-page.tsx`]: {
    file: 'assets/gallery-page-P1.js',
    isDynamicEntry: true,
    imports: ['_gallery-G1.js', 'index.html', '_button-B1.js'],
  },
  [`${F}/auth/login-page.tsx`]: { file: 'assets/login-page-L1.js', isDynamicEntry: true, imports: ['index.html'] },
  [`${F}/pricing/pricing-page.tsx`]: { file: 'assets/pricing-page-R1.js', isDynamicEntry: true },
  [`${F}/dashboard/dashboard-page.tsx`]: {
    file: 'assets/dashboard-page-D1.js',
    isDynamicEntry: true,
    imports: ['_gallery-G1.js'],
  },
};

let app: FastifyInstance;
let database: TestDatabase;
let cleanup: () => void;
let webDir: string;
beforeAll(async () => {
  webDir = mkdtempSync(path.join(os.tmpdir(), 'eyevu-web-'));
  mkdirSync(path.join(webDir, '.vite'));
  writeFileSync(path.join(webDir, 'index.html'), INDEX_HTML);
  writeFileSync(path.join(webDir, 'theme-init.js'), THEME_INIT);
  mkdirSync(path.join(webDir, 'assets'));
  writeFileSync(path.join(webDir, 'assets', 'index-C1.css'), CSS);
  writeFileSync(path.join(webDir, '.vite', 'manifest.json'), JSON.stringify(MANIFEST));
  database = await createTestDatabase();
  const config = testConfig({ webDir });
  cleanup = config.cleanup;
  app = await buildApp(config, { database });
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await database?.destroy();
  cleanup?.();
  rmSync(webDir, { recursive: true, force: true });
});

const signedIn = { cookie: 'eyevu_session=some-token' };
const modulepreloads = (html: string) =>
  [...html.matchAll(/<link rel="modulepreload"[^>]*href="([^"]+)"/g)].map((m) => m[1]);
const fetchPreloads = (html: string) =>
  [...html.matchAll(/<link rel="preload" href="([^"]+)" as="fetch" crossorigin="use-credentials"/g)].map((m) =>
    m[1]!.replace(/&amp;/g, '&'),
  );

describe('the page served for a screen', () => {
  it('/gallery signed in preloads the gallery chunks, the auth check and the first timeline page', async () => {
    const res = await app.inject({ method: 'GET', url: '/gallery', headers: signedIn });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['cache-control']).toBe('no-cache');
    // The screen's chunk and the chunk it imports, each once; the entry's own chunks are not repeated.
    expect(modulepreloads(res.body).sort()).toEqual(
      ['/assets/button-B1.js', '/assets/gallery-G1.js', '/assets/gallery-page-P1.js'].sort(),
    );
    expect(fetchPreloads(res.body)).toEqual(['/api/auth/user', '/api/app-status', '/api/photos/timeline?limit=120']);
    // The shell still paints without JavaScript.
    expect(res.body).toContain(
      '<div id="root"><!-- first-paint --><div class="shell">Checking your session</div><!-- /first-paint --></div>',
    );
  });

  it('without a session cookie: the login chunk, no answers preloaded, and the signed-out mark', async () => {
    const res = await app.inject({ method: 'GET', url: '/gallery' });
    expect(modulepreloads(res.body)).toContain('/assets/login-page-L1.js');
    expect(modulepreloads(res.body)).not.toContain('/assets/gallery-page-P1.js');
    // Not even the auth check: it could only answer 401, which the browser logs as an error.
    expect(fetchPreloads(res.body)).toEqual([]);
    // Readable by the app (not httpOnly): it then does not ask who is signed in.
    expect(markOf(res)).toMatch(/^eyevu_signed_out=1; Max-Age=\d+; Path=\/; SameSite=Lax$/);
    const pricing = await app.inject({ method: 'GET', url: '/pricing' });
    expect(modulepreloads(pricing.body)).toContain('/assets/pricing-page-R1.js');
    // Sent once: a browser that has it is not sent it again.
    const again = await app.inject({ method: 'GET', url: '/pricing', headers: { cookie: 'eyevu_signed_out=1' } });
    expect(markOf(again)).toBeUndefined();
  });

  it('with a session cookie: no mark, and a mark left from before the sign-in is dropped', async () => {
    for (const url of ['/', '/pricing', '/login']) {
      expect(markOf(await app.inject({ method: 'GET', url, headers: signedIn }))).toBeUndefined();
    }
    const res = await app.inject({
      method: 'GET',
      url: '/pricing',
      headers: { cookie: `${signedIn.cookie}; eyevu_signed_out=1` },
    });
    expect(markOf(res)).toMatch(
      /^eyevu_signed_out=; Max-Age=0; Path=\/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; SameSite=Lax$/,
    );
  });

  it('over HTTPS the prefixed session cookie paints the gallery, as the plain one does over HTTP', async () => {
    const registered = await app.inject({
      method: 'POST',
      url: '/api/auth/register',
      headers: { 'x-forwarded-proto': 'https' },
      payload: { firstName: 'A', lastName: 'B', email: `host-prefix-${Date.now()}@example.com`, password: 'secret123' },
    });
    const c = registered.cookies.find((x) => x.name === '__Host-eyevu_session')!;
    const res = await app.inject({
      method: 'GET',
      url: '/gallery',
      headers: { 'x-forwarded-proto': 'https', cookie: `__Host-eyevu_session=${c.value}` },
    });
    expect(res.body).toContain('<div id="first-paint" class="contents">');
    expect(res.body).toContain('<h1 class="text-2xl font-bold">Photo Gallery</h1>');
    expect(markOf(res)).toBeUndefined();
  });

  it('/pricing paints its heading from the HTML, signed in or not; other screens keep the spinner', async () => {
    for (const headers of [signedIn, {}]) {
      const res = await app.inject({ method: 'GET', url: '/pricing', headers });
      const first = /<div id="first-paint" class="contents">([\s\S]*?<\/main>)<\/div>/.exec(res.body);
      expect(res.body).not.toContain('Checking your session');
      expect(first).not.toBeNull();
      // The spec's heading, once, in a real <h1>; the bar has no control a user could press before the script runs.
      expect(res.body.match(/<h1[^>]*>Choose Your Plan<\/h1>/g)).toHaveLength(1);
      expect(res.body).toContain('<p class="text-sm text-muted">Browse your photos instead of watching ads</p>');
      expect(first![1]).not.toMatch(/<(button|select|input|a)\b/);
    }
    const gallery = await app.inject({ method: 'GET', url: '/gallery', headers: signedIn });
    expect(gallery.body).not.toContain('first-paint"');
    expect(gallery.body).toContain('Checking your session');
  });

  it("/gallery signed in paints the owner's first two rows of thumbnails, as the timeline answers them", async () => {
    const owner = await signUp(app);
    const other = await signUp(app);
    const jpeg = (seed: number) =>
      sharp({ create: { width: 40 + seed, height: 30, channels: 3, background: { r: seed * 40, g: 60, b: 90 } } })
        .jpeg()
        .toBuffer();
    const files = await Promise.all(
      [0, 1, 2, 3, 4].map(async (i) => ({ name: `<b>a&${i}.jpg`, bytes: await jpeg(i) })),
    );
    expect((await postPhotos(app, owner.cookie, files)).statusCode).toBe(201);
    const timeline = await app.inject({
      method: 'GET',
      url: '/api/photos/timeline?limit=120',
      headers: { cookie: owner.cookie },
    });
    const { items, total } = timeline.json() as { items: Array<{ thumbnailUrl: string; name: string }>; total: number };

    const res = await app.inject({ method: 'GET', url: '/gallery', headers: { cookie: owner.cookie } });
    expect(res.statusCode).toBe(200);
    // The owner's photos: never kept by a shared cache.
    expect(res.headers['cache-control']).toBe('private, no-cache');
    const first = /<div id="first-paint" class="contents">([\s\S]*?<\/main>)<\/div>/.exec(res.body)?.[1];
    expect(first).toBeDefined();
    expect(res.body).not.toContain('Checking your session');
    expect(first).toContain('<h1 class="text-2xl font-bold">Photo Gallery</h1>');
    expect(first).toContain(`${total} photos available`);
    // The first two rows (four tiles) in the timeline's order, the URLs the grid asks for, high priority.
    const imgs = [
      ...first!.matchAll(
        /<img src="([^"]+)"(?: data-src="([^"]+)")? alt="([^"]*)" loading="eager" fetchpriority="high"/g,
      ),
    ];
    expect(imgs.map((m) => (m[2] ?? m[1])!.replace(/&amp;/g, '&'))).toEqual(
      items.slice(0, 4).map((p) => p.thumbnailUrl),
    );
    // The first row's pictures are inside the page: the bytes their own route gives the owner.
    for (const [i, m] of imgs.entries()) {
      if (i >= 2) {
        expect(m[2]).toBeUndefined();
        continue;
      }
      const thumb = await app.inject({ method: 'GET', url: items[i]!.thumbnailUrl, headers: { cookie: owner.cookie } });
      expect(m[1]).toBe(`data:${thumb.headers['content-type']};base64,${thumb.rawPayload.toString('base64')}`);
    }
    expect(imgs[0]![1]).toMatch(/^data:image\/webp;base64,/);
    // Names are text, never markup.
    expect(items[0]!.name).toContain('<b>a&');
    expect(imgs[0]![3]).toBe(items[0]!.name.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'));
    expect(first).not.toContain('<b>');
    // Nothing to press before the script runs.
    expect(first).not.toMatch(/<(button|select|input|a)\b/);

    // Another user's page shows none of these photos; the favorites view and a bad cookie paint none.
    const others = await app.inject({ method: 'GET', url: '/gallery', headers: { cookie: other.cookie } });
    for (const p of items) expect(others.body).not.toContain(p.thumbnailUrl.replace(/&/g, '&amp;'));
    const favorites = await app.inject({
      method: 'GET',
      url: '/gallery?view=favorites',
      headers: { cookie: owner.cookie },
    });
    expect(favorites.body).toContain('Checking your session');
    expect(favorites.headers['cache-control']).toBe('no-cache');
    const stale = await app.inject({ method: 'GET', url: '/gallery', headers: signedIn });
    expect(stale.body).toContain('Checking your session');
  });

  it("/ signed in paints the owner's dashboard first screen from its own answers, escaped, no controls", async () => {
    const owner = await signUp(app, { firstName: '<i>Ann&' });
    const other = await signUp(app);
    const jpeg = (seed: number) =>
      sharp({ create: { width: 40 + seed, height: 30, channels: 3, background: { r: seed * 40, g: 90, b: 60 } } })
        .jpeg()
        .toBuffer();
    const files = await Promise.all(
      [0, 1, 2, 3, 4].map(async (i) => ({ name: `<b>d&${i}.jpg`, bytes: await jpeg(i) })),
    );
    expect((await postPhotos(app, owner.cookie, files)).statusCode).toBe(201);
    const list = (
      await app.inject({ method: 'GET', url: '/api/photos', headers: { cookie: owner.cookie } })
    ).json() as Array<{
      thumbnailUrl: string;
      name: string;
    }>;
    const summary = (
      await app.inject({ method: 'GET', url: '/api/photos/summary', headers: { cookie: owner.cookie } })
    ).json() as { total: number; analyzed: number };

    const res = await app.inject({ method: 'GET', url: '/', headers: { cookie: owner.cookie } });
    expect(res.statusCode).toBe(200);
    // The owner's own screen: never kept by a shared cache.
    expect(res.headers['cache-control']).toBe('private, no-cache');
    expect(res.body).not.toContain('Checking your session');
    const first = /<div id="first-paint" class="contents">([\s\S]*?<\/main>)<\/div>/.exec(res.body)?.[1];
    expect(first).toBeDefined();
    // The spec's texts with the owner's figures; the name is text, never markup.
    expect(first).toContain('<h1 class="truncate text-2xl font-bold">Hi, &lt;i&gt;Ann&amp;</h1>');
    expect(first).toContain(`Member for 0 days • ${summary.total} photos`);
    expect(first).toContain('<p class="font-bold">Free Plan</p><p class="text-sm text-muted">Limited features</p>');
    expect(first).toContain('Ad monitoring is off');
    expect(first).toContain(`${summary.total} total photos • ${summary.analyzed} analyzed`);
    // The four newest small thumbnails in the list's order, as the screen asks for them, high priority.
    const imgs = [
      ...first!.matchAll(
        /<img src="([^"]+)"(?: data-src="([^"]+)")? alt="([^"]*)" class="size-full object-cover" fetchpriority="high">/g,
      ),
    ];
    const smallUrls = list.slice(0, 4).map((p) => p.thumbnailUrl.replace('/thumbnail?', '/small?'));
    expect(imgs.map((m) => (m[2] ?? m[1])!.replace(/&amp;/g, '&'))).toEqual(smallUrls);
    // Small thumbnails: all four are inside the page, as their route answers the owner.
    for (const [i, m] of imgs.entries()) {
      const small = await app.inject({ method: 'GET', url: smallUrls[i]!, headers: { cookie: owner.cookie } });
      expect(small.statusCode).toBe(200);
      expect(m[1]).toBe(`data:image/webp;base64,${small.rawPayload.toString('base64')}`);
    }
    expect(imgs[0]![3]).toBe(list[0]!.name.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'));
    expect(first).not.toMatch(/<(b|i)>/);
    // Nothing to press before the script runs.
    expect(first).not.toMatch(/<(button|select|input|a)\b/);

    // Another user's dashboard shows their own greeting and none of the owner's photos.
    const others = await app.inject({ method: 'GET', url: '/', headers: { cookie: other.cookie } });
    expect(others.body).toContain('Hi, Test</h1>');
    expect(others.body).not.toContain('Ann');
    for (const p of list)
      for (const url of [p.thumbnailUrl, p.thumbnailUrl.replace('/thumbnail?', '/small?')])
        expect(others.body).not.toContain(url.replace(/&/g, '&amp;'));
    // A stale cookie or a query string: the plain page, shareable.
    for (const [url, headers] of [
      ['/', signedIn],
      ['/?x=1', { cookie: owner.cookie }],
    ] as const) {
      const plain = await app.inject({ method: 'GET', url, headers });
      expect(plain.body).toContain('Checking your session');
      expect(plain.headers['cache-control']).toBe('no-cache');
    }
  });

  it("paints the status bar's Active badge on the gallery and the dashboard while the app is active", async () => {
    const owner = await signUp(app);
    const jpeg = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#3a6' } })
      .jpeg()
      .toBuffer();
    expect((await postPhotos(app, owner.cookie, [{ name: 'a.jpg', bytes: jpeg }])).statusCode).toBe(201);
    const bar = async (url: string) => {
      const res = await app.inject({ method: 'GET', url, headers: { cookie: owner.cookie } });
      return /<div id="first-paint" class="contents">(<header[\s\S]*?<\/header>)/.exec(res.body)?.[1];
    };
    const badge =
      '<span class="shrink-0 rounded-full bg-success px-2 py-0.5 text-xs font-semibold text-success-fg">Active</span>';
    for (const url of ['/gallery', '/']) expect(await bar(url)).not.toContain(badge);
    const on = await app.inject({
      method: 'POST',
      url: '/api/app-status/activate',
      headers: { cookie: owner.cookie },
      payload: {},
    });
    expect(on.statusCode).toBe(200);
    for (const url of ['/gallery', '/']) expect(await bar(url)).toContain(badge);
  });

  it("paints a plan's end date in the browser's zone (its cookie), as the app shows it; UTC without one", async () => {
    const owner = await signUp(app);
    const trial = await app.inject({
      method: 'POST',
      url: '/api/subscription',
      headers: { cookie: owner.cookie },
      payload: { plan: 'monthly' },
    });
    expect(trial.statusCode).toBeLessThan(300);
    const { endDate } = (
      await app.inject({ method: 'GET', url: '/api/subscription', headers: { cookie: owner.cookie } })
    ).json() as { endDate: string };
    const expires = async (zoneCookie: string) => {
      const cookie = zoneCookie ? `${owner.cookie}; ${zoneCookie}` : owner.cookie;
      const res = await app.inject({ method: 'GET', url: '/', headers: { cookie } });
      expect(res.statusCode).toBe(200);
      return /<p class="text-sm text-muted">Expires ([^<]*)<\/p>/.exec(res.body)?.[1];
    };
    // 25 hours apart: the same instant is on another day in each.
    const east = await expires(`eyevu_tz=${encodeURIComponent('Pacific/Kiritimati')}`);
    const west = await expires(`eyevu_tz=${encodeURIComponent('Pacific/Pago_Pago')}`);
    expect(east).toBe(formatDay(endDate, 'Pacific/Kiritimati'));
    expect(west).toBe(formatDay(endDate, 'Pacific/Pago_Pago'));
    expect(east).not.toBe(west);
    // No cookie, or one Intl does not know: UTC, and still a painted page.
    expect(await expires('')).toBe(formatDay(endDate, 'UTC'));
    expect(await expires('eyevu_tz=Mars%2FOlympus')).toBe(formatDay(endDate, 'UTC'));
  });

  it('painted pages are bounded per session: past the budget the plain page, never an error; other sessions still painted', async () => {
    const owner = await signUp(app);
    const other = await signUp(app);
    const painted = (body: string) => body.includes('<div id="first-paint" class="contents">');
    const gallery = (cookie: string) =>
      app.inject({ method: 'GET', url: '/gallery', headers: { cookie, 'accept-encoding': 'gzip' } });
    for (let i = 0; i < PAINTED_PAGES_PER_WINDOW; i++) {
      const res = await gallery(owner.cookie);
      expect(res.statusCode).toBe(200);
      expect(painted(gunzipSync(res.rawPayload).toString())).toBe(true);
    }
    // Each painted page asked the app's routes and was compressed for its answer; the next is the
    // shared plain page, for the gallery and the dashboard alike.
    for (const url of ['/gallery', '/']) {
      const past = await app.inject({ method: 'GET', url, headers: { cookie: owner.cookie } });
      expect(past.statusCode).toBe(200);
      expect(painted(past.body)).toBe(false);
      expect(past.body).toContain('Checking your session');
      expect(past.headers['cache-control']).toBe('no-cache');
    }
    expect(painted(gunzipSync((await gallery(other.cookie)).rawPayload).toString())).toBe(true);
  });

  it("names each screen in the page's title, as the app will, painted or not", async () => {
    const titleOf = (html: string) => /<title>([^<]*)<\/title>/.exec(html)?.[1];
    const cases: Array<[string, Record<string, string>, string]> = [
      ['/pricing', {}, 'Pricing - Eyevu'],
      ['/pricing', signedIn, 'Pricing - Eyevu'],
      ['/', {}, 'Sign In - Eyevu'],
      ['/login', {}, 'Sign In - Eyevu'],
      ['/register', {}, 'Create Account - Eyevu'],
      ['/forgot-password', {}, 'Forgot Password - Eyevu'],
      ['/gallery', {}, 'Sign In - Eyevu'],
      ['/billing', signedIn, 'Billing &amp; Subscription - Eyevu'],
      ['/settings', signedIn, 'Settings - Eyevu'],
      ['/organizer', signedIn, 'Photo Organizer - Eyevu'],
      ['/photo-editor', signedIn, 'Photo Editor - Eyevu'],
      ['/checkout?tier=basic&billing=monthly', signedIn, 'Checkout - Eyevu'],
      ['/no-such-screen', signedIn, 'Page not found - Eyevu'],
      ['/no-such-screen', {}, 'Page not found - Eyevu'],
      ['/Gallery/', signedIn, 'Photo Gallery - Eyevu'],
    ];
    for (const [url, headers, title] of cases) {
      const res = await app.inject({ method: 'GET', url, headers });
      expect([url, titleOf(res.body)]).toEqual([url, title]);
      expect(res.body.match(/<title>/g)).toHaveLength(1);
    }
    // The painted gallery and dashboard, made per request, carry their screen's title too.
    const owner = await signUp(app);
    const jpeg = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#468' } })
      .jpeg()
      .toBuffer();
    expect((await postPhotos(app, owner.cookie, [{ name: 't.jpg', bytes: jpeg }])).statusCode).toBe(201);
    for (const [url, title] of [
      ['/gallery', 'Photo Gallery - Eyevu'],
      ['/', 'Dashboard - Eyevu'],
    ]) {
      const res = await app.inject({ method: 'GET', url: url!, headers: { cookie: owner.cookie } });
      expect(res.body).toContain('<div id="first-paint"');
      expect(titleOf(res.body)).toBe(title);
    }
  });

  it('an unknown path gets the page with the auth check only; an unknown API path stays a JSON 404', async () => {
    const page = await app.inject({ method: 'GET', url: '/no-such-screen?x=1', headers: signedIn });
    expect(page.statusCode).toBe(200);
    expect(fetchPreloads(page.body)).toEqual(['/api/auth/user', '/api/app-status']);
    const api = await app.inject({ method: 'GET', url: '/api/no-such-route', headers: signedIn });
    expect(api.statusCode).toBe(404);
    expect(api.json()).toMatchObject({ code: 'not_found' });
  });

  it('the theme script is inline and the CSP allows exactly its hash, never unsafe-inline', async () => {
    const res = await app.inject({ method: 'GET', url: '/' });
    expect(res.body).not.toContain('src="/theme-init.js"');
    const inline = [...res.body.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    expect(inline).toEqual([THEME_INIT]);
    const csp = String(res.headers['content-security-policy']);
    const scriptSrc = /(?:^|;)\s*script-src ([^;]*)/.exec(csp)![1]!.split(' ');
    const hash = `'sha256-${createHash('sha256').update(inline[0]!).digest('base64')}'`;
    expect(scriptSrc).toContain(hash);
    expect(scriptSrc).not.toContain("'unsafe-inline'");
    // Every script the page runs is either a file or that one hashed inline script.
    for (const m of res.body.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)) {
      if (m[2]!.trim()) expect(m[1]).not.toMatch(/src=/);
      else expect(m[1]).toMatch(/src=/);
    }
  });

  it('scripts load at low priority behind the painted shell; the stylesheet is in the page, where it was linked', async () => {
    const res = await app.inject({ method: 'GET', url: '/gallery', headers: signedIn });
    for (const tag of res.body.match(/<(script type="module"|link rel="modulepreload")[^>]*>/g) ?? []) {
      expect(tag).toContain('fetchpriority="low"');
    }
    // The first frame needs no second request for a render-blocking file.
    expect(res.body).not.toContain('rel="stylesheet"');
    expect(res.body).toContain(`<style>${CSS}</style>`);
    expect(res.body.indexOf(`<style>${CSS}</style>`)).toBeLessThan(res.body.indexOf('</head>'));
    expect(String(res.headers['content-security-policy'])).toMatch(/style-src 'self' 'unsafe-inline'/);
  });

  it('revalidates by ETag and compresses as accepted', async () => {
    const first = await app.inject({ method: 'GET', url: '/pricing', headers: { 'accept-encoding': 'gzip' } });
    expect(first.headers['content-encoding']).toBe('gzip');
    expect(first.headers.vary).toMatch(/Cookie/);
    const plain = await app.inject({ method: 'GET', url: '/pricing' });
    expect(gunzipSync(first.rawPayload).toString()).toBe(plain.body);
    const again = await app.inject({
      method: 'GET',
      url: '/pricing',
      headers: { 'if-none-match': String(first.headers.etag) },
    });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    // Another variant (signed in) is another document, with another ETag.
    const other = await app.inject({ method: 'GET', url: '/pricing', headers: signedIn });
    expect(other.headers.etag).not.toBe(first.headers.etag);
  });

  it('every screen module the pages name exists in the client source', () => {
    for (const m of SCREEN_MODULES) expect(existsSync(path.resolve(m)), m).toBe(true);
  });
});

describe('pictures inside a painted page', () => {
  const picture = (size: number, type = 'image/webp') => ({ type, bytes: Buffer.alloc(size, 7) });
  const lookupOf =
    (pictures: Record<string, { type: string; bytes: Buffer } | null | Error>): PictureLookup =>
    async (url) => {
      const p = pictures[url];
      if (p instanceof Error) throw p;
      return p ?? null;
    };

  it('takes the leading pictures that fit the budget together, in order, and stops at the first that does not', async () => {
    const lookup = lookupOf({ a: picture(10), b: picture(20), c: picture(5), d: picture(1) });
    const inline = await inlinePictures(['a', 'b', 'c', 'd'], lookup, 34);
    // a + b = 30; c would make 35: it and everything after it stay links, so pictures never arrive out of order.
    expect([...inline.keys()]).toEqual(['a', 'b']);
    expect(inline.get('a')).toBe(`data:image/webp;base64,${Buffer.alloc(10, 7).toString('base64')}`);
    expect([...(await inlinePictures(['a', 'b'], lookup, 9)).keys()]).toEqual([]);
  });

  it('a picture its route did not answer, answered as something else than an image, or that failed ends the run', async () => {
    const lookup = lookupOf({
      ok: picture(1),
      ok2: picture(1),
      missing: null,
      html: picture(1, 'text/html; charset=utf-8'),
      svg: picture(1, 'image/svg+xml'),
      broken: new Error('store down'),
    });
    for (const bad of ['missing', 'html', 'svg', 'broken']) {
      expect([...(await inlinePictures(['ok', bad, 'ok2'], lookup)).keys()]).toEqual(['ok']);
    }
  });

  it('a first row too large for the budget is linked, as before', async () => {
    const owner = await signUp(app);
    // Noise compresses badly: a thumbnail far above the budget.
    const noisy = await sharp(Buffer.from(Array.from({ length: 600 * 600 * 3 }, (_, i) => (i * 7919) % 251)), {
      raw: { width: 600, height: 600, channels: 3 },
    })
      .png()
      .toBuffer();
    expect((await postPhotos(app, owner.cookie, [{ name: 'noise.png', bytes: noisy }])).statusCode).toBe(201);
    const [newest] = (
      await app.inject({ method: 'GET', url: '/api/photos/timeline?limit=120', headers: { cookie: owner.cookie } })
    ).json().items as Array<{ name: string; thumbnailUrl: string }>;
    expect(newest!.name).toBe('noise');
    const thumb = await app.inject({ method: 'GET', url: newest!.thumbnailUrl, headers: { cookie: owner.cookie } });
    expect(thumb.rawPayload.length).toBeGreaterThan(INLINE_PICTURE_BYTES);
    const res = await app.inject({ method: 'GET', url: '/gallery', headers: { cookie: owner.cookie } });
    expect(res.body).toContain('first-paint-grid');
    expect(res.body).not.toContain('data-src=');
    expect(res.body).not.toContain('src="data:');
  });
});

describe('the painted-page budget', () => {
  it('counts per session in a window, starts again after it, and remembers a bounded number of sessions', () => {
    let now = 0;
    const budget = new PaintBudget({ max: 2, windowMs: 1000, maxKeys: 2, now: () => now });
    budget.count('a');
    budget.count('a');
    expect(budget.allows('a')).toBe(false);
    expect(budget.allows('b')).toBe(true);
    now = 999;
    expect(budget.allows('a')).toBe(false);
    now = 1000;
    expect(budget.allows('a')).toBe(true);
    budget.count('a');
    expect(budget.allows('a')).toBe(true);
    budget.count('a');
    expect(budget.allows('a')).toBe(false);
    // Past two sessions the oldest counted is forgotten (a flood of sessions cannot grow memory).
    budget.count('b');
    budget.count('b');
    expect(budget.allows('b')).toBe(false);
    budget.count('c');
    expect(budget.allows('a')).toBe(true);
    expect(budget.allows('b')).toBe(false);
    budget.count('d');
    expect(budget.allows('b')).toBe(true);
  });
});
