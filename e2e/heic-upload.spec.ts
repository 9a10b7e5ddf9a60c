import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { register } from './helpers';

/** 96 x 64 HEVC-coded HEIC with iPhone EXIF (made with libheif's heif-enc). */
const heic = readFileSync(path.join(import.meta.dirname, 'fixtures', 'iphone-sample.heic'));

test.beforeEach(async ({ page }) => {
  await page.addInitScript(() => {
    localStorage.setItem('eyevu-onboarding-completed', 'true');
    localStorage.setItem('eyevu-onboarding-seen', 'true');
  });
});

test('an iPhone HEIC uploads, shows in the gallery and zooms as an image the browser can decode', async ({ page }) => {
  await register(page);
  await page.goto('/gallery');
  await expect(page.getByText('10 photos available')).toBeVisible();

  await page.getByLabel('Choose photos to upload').setInputFiles({
    name: 'IMG_0042.HEIC',
    mimeType: 'image/heic',
    buffer: heic,
  });
  await expect(page.getByText('Photo uploaded successfully!')).toBeVisible();
  await expect(page.getByText('11 photos available')).toBeVisible();

  // The timeline puts it at the month it was taken (July 2024); searching for the camera finds it.
  await page.getByRole('searchbox', { name: 'Search photos' }).fill('iPhone');
  await expect(page.getByRole('status').filter({ hasText: /found for “iPhone”/ })).toBeVisible();

  // In the grid with a thumbnail that decoded.
  const tile = page.getByTestId('photo-tile').filter({ hasText: 'IMG_0042' });
  await expect(tile).toHaveCount(1);
  const thumb = tile.getByRole('img');
  await expect
    .poll(() => thumb.evaluate((el: HTMLImageElement) => (el.complete ? el.naturalWidth : 0)))
    .toBeGreaterThan(0);

  await page.getByRole('button', { name: 'Open IMG_0042' }).click();
  const viewer = page.getByRole('dialog', { name: 'Your Photos' });
  await expect(viewer.getByTestId('viewer-caption')).toContainText('IMG_0042');
  const image = viewer.getByTestId('viewer-image');
  await expect(image).toHaveAttribute('src', /\/preview\?v=/);

  // Zoom loads the JPEG rendition, never the HEIC original, and the browser decodes it.
  const rendition = page.waitForResponse((r) => /\/display\?v=/.test(r.url()));
  await viewer.getByRole('button', { name: 'Zoom in' }).click();
  await expect(image).toHaveAttribute('data-zoomed', 'true');
  await expect(image).toHaveAttribute('src', /\/display\?v=/);
  const res = await rendition;
  expect(res.status()).toBe(200);
  expect(res.headers()['content-type']).toBe('image/jpeg');
  await expect
    .poll(() => image.evaluate((el: HTMLImageElement) => (el.complete ? [el.naturalWidth, el.naturalHeight] : [0, 0])))
    .toEqual([96, 64]);
  await expect(image).toHaveCSS('transform', 'matrix(1.5, 0, 0, 1.5, 0, 0)');
});
