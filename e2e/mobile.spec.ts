import { expect, test, type Locator, type Page } from '@playwright/test';
import { register } from './helpers';

const WIDTHS = [320, 375, 430];
const SIGNED_OUT = ['/', '/register', '/forgot-password', '/pricing'];
const SIGNED_IN = [
  '/',
  '/gallery',
  '/organizer',
  '/photo-editor',
  '/pricing',
  '/checkout?tier=premium&billing=monthly',
  '/billing',
  '/settings',
];

async function expectNoHorizontalScroll(page: Page, label: string) {
  await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();
  // Against the viewport set, not innerWidth: a phone (isMobile) widens its layout viewport to
  // content that overflows, so innerWidth grew with scrollWidth and this could never fail.
  const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
  const width = page.viewportSize()!.width;
  expect(scrollWidth, `${label}: scrollWidth ${scrollWidth} > ${width}`).toBeLessThanOrEqual(width);
}

async function expectTouchTarget(target: Locator) {
  const box = (await target.boundingBox())!;
  expect(box, await target.evaluate((el) => el.outerHTML.slice(0, 120))).toBeTruthy();
  expect(box.width, `${await target.textContent()} width`).toBeGreaterThanOrEqual(44);
  expect(box.height, `${await target.textContent()} height`).toBeGreaterThanOrEqual(44);
}

test.beforeEach(async ({ page }) => {
  await page.addInitScript(() => {
    localStorage.setItem('eyevu-onboarding-completed', 'true');
    localStorage.setItem('eyevu-onboarding-seen', 'true');
  });
});

test('no horizontal scroll at 320, 375 and 430 px on any route', async ({ page }) => {
  test.setTimeout(120_000);
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 800 });
    for (const path of SIGNED_OUT) {
      await page.goto(path);
      await expectNoHorizontalScroll(page, `signed out ${path} @${width}`);
    }
  }
  await register(page);
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 800 });
    for (const path of SIGNED_IN) {
      await page.goto(path);
      await expectNoHorizontalScroll(page, `${path} @${width}`);
    }
  }
});

test('primary controls are at least 44 x 44 px', async ({ page }) => {
  await page.setViewportSize({ width: 320, height: 800 });
  await page.goto('/login');
  await expectTouchTarget(page.getByRole('button', { name: 'Sign In' }));
  await register(page);
  const nav = page.getByRole('navigation', { name: 'Main' });
  for (const name of ['Home', 'Gallery', 'Organize', 'Billing']) {
    await expectTouchTarget(nav.getByRole('link', { name, exact: true }));
  }
  await expectTouchTarget(page.getByTestId('status-card').getByRole('button', { name: 'Activate' }));
  await expectTouchTarget(page.getByRole('button', { name: 'YouTube (30s)' }));
  await page.goto('/gallery');
  await page.getByRole('button', { name: 'Open Astronaut Portrait' }).click();
  const viewer = page.getByRole('dialog', { name: 'Your Photos' });
  for (const name of ['Close', 'Previous photo', 'Next photo', 'Share', 'Favorite', 'Info']) {
    await expectTouchTarget(viewer.getByRole('button', { name, exact: true }));
  }
});

test('prefers-reduced-motion turns transitions and animations off', async ({ page }) => {
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.goto('/login');
  const button = page.getByRole('button', { name: 'Sign In' });
  const seconds = (v: string) => Math.max(...v.split(',').map((s) => parseFloat(s)));
  expect(seconds(await button.evaluate((el) => getComputedStyle(el).transitionDuration))).toBeLessThan(0.001);
  await page.emulateMedia({ reducedMotion: 'no-preference' });
  expect(seconds(await button.evaluate((el) => getComputedStyle(el).transitionDuration))).toBeGreaterThan(0.05);
});

test('the viewer zooms with two fingers about their midpoint and pans while zoomed', async ({ page }) => {
  await register(page);
  await page.goto('/gallery');
  await page.getByRole('button', { name: 'Open Astronaut Portrait' }).click();
  const stage = page.getByTestId('viewer-stage');
  const image = page.getByTestId('viewer-image');
  const box = (await stage.boundingBox())!;
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  // Touch pointer events as a browser sends them for a pinch (two ids), then a one-finger drag.
  await stage.evaluate(
    (el, { cx, cy }) => {
      const send = (type: string, id: number, x: number, y: number) =>
        el.dispatchEvent(
          new PointerEvent(type, { pointerId: id, pointerType: 'touch', clientX: x, clientY: y, bubbles: true }),
        );
      send('pointerdown', 1, cx - 20, cy);
      send('pointerdown', 2, cx + 20, cy);
      send('pointermove', 1, cx - 40, cy);
      send('pointermove', 2, cx + 40, cy);
      send('pointerup', 1, cx - 40, cy);
      send('pointerup', 2, cx + 40, cy);
    },
    { cx, cy },
  );
  await expect(image).toHaveAttribute('data-zoomed', 'true');
  await expect(image).toHaveCSS('transform', 'matrix(2, 0, 0, 2, 0, 0)');
  await stage.evaluate(
    (el, { cx, cy }) => {
      const send = (type: string, x: number, y: number) =>
        el.dispatchEvent(
          new PointerEvent(type, { pointerId: 3, pointerType: 'touch', clientX: x, clientY: y, bubbles: true }),
        );
      send('pointerdown', cx, cy);
      send('pointermove', cx + 30, cy - 10);
      send('pointerup', cx + 30, cy - 10);
    },
    { cx, cy },
  );
  await expect(image).toHaveCSS('transform', 'matrix(2, 0, 0, 2, 30, -10)');
});
