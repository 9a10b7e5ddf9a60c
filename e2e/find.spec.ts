import { expect, test } from '@playwright/test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { monthLabel } from '../src/domain/find';
import { register } from './helpers';

const dir = mkdtempSync(path.join(os.tmpdir(), 'eyevu-find-'));
const demoFig = path.join(import.meta.dirname, '..', 'assets', 'demo-photos', 'fig-in-red-bowl.jpg');

/** A JPEG as a camera writes it: the date taken and the camera in its EXIF. */
async function cameraPhoto(name: string, colour: string, taken: string, make: string, model: string) {
  const bytes = await sharp({ create: { width: 320, height: 240, channels: 3, background: colour } })
    .jpeg()
    .withExif({ IFD0: { Make: make, Model: model }, IFD2: { DateTimeOriginal: taken } })
    .toBuffer();
  const file = path.join(dir, name);
  writeFileSync(file, bytes);
  return file;
}

test.beforeEach(async ({ page }) => {
  // The onboarding tutorial is not under test here: mark it seen so it does not cover the gallery.
  await page.addInitScript(() => {
    localStorage.setItem('eyevu-onboarding-completed', 'true');
    localStorage.setItem('eyevu-onboarding-seen', 'true');
  });
});

test('the gallery is a timeline by date taken with month headers, and one field searches it', async ({ page }) => {
  const lake = await cameraPhoto('lake-trip.jpg', '#2a7ab0', '2019:03:15 10:20:30', 'Apple', 'iPhone 12 Pro');
  const picnic = await cameraPhoto('picnic.jpg', '#b0a02a', '2021:07:04 13:00:00', 'Canon', 'EOS 80D');
  await register(page);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Gallery', exact: true }).click();
  await expect(page.getByText('10 photos available')).toBeVisible();
  await page.getByLabel('Choose photos to upload').setInputFiles([lake, picnic]);
  await expect(page.getByText('2 photos uploaded!')).toBeVisible();
  await expect(page.getByText('12 photos available')).toBeVisible();

  // Uploaded last but taken earlier: they follow the demo library (uploaded at sign-up), oldest last,
  // each under the header of the month it was taken.
  const headers = page.getByTestId('month-header');
  await expect(headers.first()).toHaveText(monthLabel(new Date().toISOString()));
  await expect(headers.nth(1)).toHaveText('July 2021');
  // The grid is virtualised: the oldest month comes into the DOM when scrolled to.
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  await expect(headers.last()).toHaveText('March 2019');
  const lakeTile = page.getByRole('button', { name: 'Open lake-trip' });
  const picnicTile = page.getByRole('button', { name: 'Open picnic' });
  await expect(lakeTile).toBeVisible();
  const marchTop = (await headers.last().boundingBox())!.y;
  expect((await lakeTile.boundingBox())!.y).toBeGreaterThan(marchTop);
  expect((await picnicTile.boundingBox())!.y).toBeLessThan(marchTop);
  const tiles = page.getByTestId('photo-tile');
  // The oldest taken is the last tile of the grid.
  await expect(tiles.last()).toContainText('lake-trip');
  await page.evaluate(() => window.scrollTo(0, 0));

  // Search: camera, year, category-free words of the name, and nothing.
  const search = page.getByRole('searchbox', { name: 'Search photos' });
  await search.fill('iPhone');
  await expect(page.getByRole('status').filter({ hasText: 'found' })).toHaveText('1 photo found for “iPhone”');
  await expect(tiles).toHaveCount(1);
  await expect(tiles.first()).toContainText('lake-trip');
  await expect(page.getByText('12 photos available')).toBeVisible();

  await search.fill('2021');
  await expect(tiles).toHaveCount(1);
  await expect(tiles.first()).toContainText('picnic');
  await expect(headers).toHaveText(['July 2021']);

  await search.fill('march 2019');
  await expect(tiles).toHaveCount(1);
  await expect(tiles.first()).toContainText('lake-trip');

  await search.fill('coffee');
  await expect(tiles).toHaveCount(1);
  await expect(tiles.first()).toContainText('Coffee Cup');

  // A result opens in the viewer like any photo.
  await tiles.first().click();
  const viewer = page.getByRole('dialog', { name: 'Your Photos' });
  await expect(viewer.getByTestId('viewer-caption')).toContainText('Coffee Cup');
  await page.keyboard.press('Escape');

  await search.fill('zebra');
  await expect(page.getByText('No photos match your search')).toBeVisible();
  await expect(tiles).toHaveCount(0);

  await page.getByRole('button', { name: 'Clear search' }).click();
  await expect(search).toHaveValue('');
  await expect(headers.first()).toHaveText(monthLabel(new Date().toISOString()));
  await expect(tiles.first()).toContainText('Astronaut Portrait');
});

test('similar photos in the viewer and the Possible duplicates smart album', async ({ page }) => {
  // A smaller, re-encoded copy of a demo photo (as a phone's "save a copy" would make).
  const copy = path.join(dir, 'fig-copy.jpg');
  writeFileSync(copy, await sharp(demoFig).resize(700).modulate({ brightness: 1.08 }).jpeg({ quality: 60 }).toBuffer());
  await register(page);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Gallery', exact: true }).click();
  await page.getByLabel('Choose photos to upload').setInputFiles(copy);
  await expect(page.getByText('11 photos available')).toBeVisible();

  await page.getByRole('button', { name: 'Open fig-copy' }).click();
  const viewer = page.getByRole('dialog', { name: 'Your Photos' });
  const caption = viewer.getByTestId('viewer-caption');
  await expect(caption).toContainText('fig-copy');
  await viewer.getByRole('button', { name: 'Similar photos' }).click();
  const similar = viewer.getByRole('list', { name: 'Similar photos' }).getByRole('button');
  await expect(similar.first()).toHaveAccessibleName('Show similar photo Fig in a Red Bowl');
  expect(await similar.count()).toBeLessThanOrEqual(12);
  await similar.first().click();
  await expect(caption).toContainText('Fig in a Red Bowl');
  await expect(viewer.getByTestId('viewer-image')).toHaveAttribute('alt', 'Fig in a Red Bowl');
  // Moving on leaves the similar photo for the gallery's order again.
  await viewer.getByRole('button', { name: 'Next photo' }).click();
  await expect(caption).not.toContainText('Fig in a Red Bowl');
  await page.keyboard.press('Escape');

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Organize' }).click();
  await page.getByRole('tab', { name: 'Albums' }).click();
  const album = page.getByRole('link', { name: /Possible duplicates/ });
  await expect(album).toContainText('Smart album with 2 photos');
  await expect(album).toContainText('Smart Album');
  await album.click();

  await expect(page).toHaveURL(/\/gallery\?album=duplicates$/);
  await expect(page.getByRole('heading', { name: 'Possible duplicates' })).toBeVisible();
  await expect(page.getByText('2 photos in 1 group')).toBeVisible();
  const tiles = page.getByTestId('photo-tile');
  await expect(tiles).toHaveCount(2);
  await expect(tiles.filter({ hasText: 'fig-copy' })).toHaveCount(1);
  await expect(tiles.filter({ hasText: 'Fig in a Red Bowl' })).toHaveCount(1);
  await page.getByRole('link', { name: 'All photos' }).click();
  await expect(page).toHaveURL(/\/gallery$/);
  await expect(page.getByTestId('photo-tile')).toHaveCount(11);
});
