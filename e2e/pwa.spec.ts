import { expect, test, type Page } from '@playwright/test';
import { register } from './helpers';

test.beforeEach(async ({ page }) => {
  await page.addInitScript(() => {
    localStorage.setItem('eyevu-onboarding-completed', 'true');
    localStorage.setItem('eyevu-onboarding-seen', 'true');
  });
});

test('the web manifest is served, linked and installable-shaped', async ({ page, request }) => {
  const res = await request.get('/manifest.webmanifest');
  expect(res.ok()).toBeTruthy();
  expect(res.headers()['content-type']).toMatch(/application\/manifest\+json/);
  const manifest = await res.json();
  expect(manifest).toMatchObject({
    name: 'Eyevu',
    short_name: 'Eyevu',
    start_url: '/',
    display: 'standalone',
    theme_color: expect.stringMatching(/^#[0-9a-f]{6}$/),
  });
  const icons = manifest.icons as { src: string; sizes: string; type: string; purpose?: string }[];
  for (const size of ['192x192', '512x512']) {
    expect(icons.some((i) => i.sizes === size && (i.purpose ?? 'any').includes('any'))).toBe(true);
  }
  expect(icons.some((i) => i.purpose?.includes('maskable'))).toBe(true);
  for (const icon of icons) {
    const img = await request.get(icon.src);
    expect(img.ok(), icon.src).toBeTruthy();
    expect(img.headers()['content-type']).toBe('image/png');
  }

  await page.goto('/');
  await expect(page.locator('link[rel="manifest"]')).toHaveAttribute('href', '/manifest.webmanifest');
  // The bar colour follows the theme.
  const themeColor = page.locator('meta[name="theme-color"]');
  await expect(themeColor).toHaveAttribute('content', '#6d28d9');
  await page.getByLabel('Theme', { exact: true }).selectOption('dark');
  await expect(themeColor).toHaveAttribute('content', '#1a1a22');
  await page.reload();
  await expect(themeColor).toHaveAttribute('content', '#1a1a22');
});

const swControls = (page: Page) => page.evaluate(() => !!navigator.serviceWorker.controller);

test('the service worker serves the shell and seen thumbnails offline', async ({ page, context }) => {
  await register(page);
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
  await page.reload();
  await expect.poll(() => swControls(page)).toBe(true);

  // Thumbnails seen through the service worker are cached; no other /api answer is.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Gallery', exact: true }).click();
  const thumb = page.getByTestId('photo-tile').first().getByRole('img');
  await expect(thumb).toHaveJSProperty('complete', true);
  const thumbUrl = (await thumb.getAttribute('src'))!;
  expect(thumbUrl).toMatch(/\/api\/photos\/[^/]+\/thumbnail/);
  const cached = () =>
    page.evaluate(async () => {
      const names = await caches.keys();
      const urls: string[] = [];
      for (const name of names) for (const r of await (await caches.open(name)).keys()) urls.push(r.url);
      return urls.filter((u) => new URL(u).pathname.startsWith('/api/'));
    });
  await expect.poll(async () => (await cached()).some((u) => u.endsWith(thumbUrl))).toBe(true);
  // The dashboard's small thumbnails are kept the same way.
  expect((await cached()).every((u) => /\/api\/photos\/[^/]+\/(?:thumbnail|small)\?/.test(u))).toBe(true);

  // Offline on a screen whose data was never loaded: the offline screen, then it recovers.
  await context.setOffline(true);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Organize' }).click();
  const offline = page.getByRole('heading', { name: "You're offline" });
  await expect(offline).toBeVisible();
  await page.getByRole('button', { name: 'Try again' }).click();
  await expect(offline).toBeVisible();
  // Back online, the paused queries resume and the screen appears.
  await context.setOffline(false);
  await expect(offline).toHaveCount(0);
  await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();

  // A reload with no network still opens the app shell, and a seen thumbnail still loads.
  await context.setOffline(true);
  await page.reload();
  await expect(page.getByRole('banner').getByText('Eyevu', { exact: true })).toBeVisible();
  await expect(offline).toBeVisible();
  const size = await page.evaluate(
    (src) =>
      new Promise<number>((resolve) => {
        const img = new Image();
        img.onload = () => resolve(img.naturalWidth);
        img.onerror = () => resolve(-1);
        img.src = src;
      }),
    thumbUrl,
  );
  expect(size).toBeGreaterThan(0);
  await context.setOffline(false);
});
