import { expect, test } from '@playwright/test';
import path from 'node:path';
import { register } from './helpers';

const fixture = path.join(import.meta.dirname, 'fixtures', 'harbour-sunrise.jpg');

test.beforeEach(async ({ page }) => {
  // The onboarding tutorial is not under test here: mark it seen so it does not cover the gallery.
  await page.addInitScript(() => {
    localStorage.setItem('eyevu-onboarding-completed', 'true');
    localStorage.setItem('eyevu-onboarding-seen', 'true');
  });
});

test('a new user sees the demo library, uploads a photo and browses it in the viewer', async ({ page }) => {
  await register(page);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Gallery', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Photo Gallery' })).toBeVisible();
  await expect(page.getByText('10 photos available')).toBeVisible();
  await expect(page.getByText(/Demo images are shown/)).toBeVisible();
  const tiles = page.getByTestId('photo-tile');
  await expect(tiles.first()).toContainText('Astronaut Portrait');
  await expect(page.getByRole('button', { name: 'Open Coffee Cup' })).toContainText('0.0 MB');

  // Upload through the file picker: a progress bar, a toast, then the photo first in the grid.
  await page.getByLabel('Choose photos to upload').setInputFiles(fixture);
  await expect(page.getByText('Photo uploaded successfully!')).toBeVisible();
  await expect(page.getByText('11 photos available')).toBeVisible();
  await expect(tiles.first()).toContainText('harbour-sunrise');
  await expect(tiles.first()).toContainText('0.2 MB');
  await expect(tiles.first().getByRole('img')).toHaveJSProperty('complete', true);

  // The viewer opens at the tapped photo and wraps around both ways.
  await page.getByRole('button', { name: 'Open Astronaut Portrait' }).click();
  const viewer = page.getByRole('dialog', { name: 'Your Photos' });
  await expect(viewer).toBeVisible();
  const caption = viewer.getByTestId('viewer-caption');
  await expect(caption).toContainText('Astronaut Portrait');
  await viewer.getByRole('button', { name: 'Previous photo' }).click();
  await expect(caption).toContainText('harbour-sunrise');
  await expect(caption).toContainText('0.2 MB');
  await viewer.getByRole('button', { name: 'Previous photo' }).click();
  await expect(caption).toContainText('Wavy Building Facade');
  await viewer.getByRole('button', { name: 'Next photo' }).click();
  await viewer.getByRole('button', { name: 'Next photo' }).click();
  await expect(caption).toContainText('Astronaut Portrait');
  await page.keyboard.press('ArrowRight');
  await expect(caption).toContainText('Spaniels at the Window');

  // Click to zoom 1.5x loads the original; again to zoom out.
  const image = viewer.getByTestId('viewer-image');
  await viewer.getByRole('button', { name: 'Zoom in' }).click();
  await expect(image).toHaveAttribute('data-zoomed', 'true');
  await expect(image).toHaveAttribute('src', /\/original\?v=/);
  await expect(image).toHaveCSS('transform', 'matrix(1.5, 0, 0, 1.5, 0, 0)');
  await viewer.getByRole('button', { name: 'Zoom out' }).click();
  await expect(image).toHaveAttribute('src', /\/preview\?v=/);
  await expect(viewer.getByRole('button', { name: 'Play Game' })).toHaveCount(0);

  await page.keyboard.press('Escape');
  await expect(viewer).toHaveCount(0);
});

test('a file that is not an image is refused with a message', async ({ page }) => {
  await register(page);
  await page.goto('/gallery');
  await expect(page.getByText('10 photos available')).toBeVisible();
  await page.getByLabel('Choose photos to upload').setInputFiles({
    name: 'notes.jpg',
    mimeType: 'image/jpeg',
    buffer: Buffer.from('this is only text pretending to be a photo'),
  });
  await expect(page.getByText('Upload failed')).toBeVisible();
  await expect(page.getByText(/not a supported image/)).toBeVisible();
  await expect(page.getByText('10 photos available')).toBeVisible();
});
