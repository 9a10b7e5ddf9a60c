import { expect, test } from '@playwright/test';
import { register } from './helpers';

// Real models on the server: loading them (~5 s) plus ~1 s per demo photo, more on a busy machine.
test.setTimeout(240_000);

test('Analyze Photos organizes the demo library into categories, and an album is made from two photos', async ({
  page,
}) => {
  await register(page);
  await page.goto('/organizer');
  await expect(page.getByRole('heading', { name: 'Photo Organizer' })).toBeVisible();
  await expect(page.getByText('AI-powered photo organization')).toBeVisible();
  await expect(page.getByText('0/10 analyzed')).toBeVisible();
  await expect(page.getByText('10 photos need AI analysis for smart organization.')).toBeVisible();

  await page.getByRole('tab', { name: 'Categories' }).click();
  await expect(page.getByText('No categories yet')).toBeVisible();
  await page.getByRole('tab', { name: 'Albums' }).click();
  await expect(page.getByText('No albums yet')).toBeVisible();

  await page.getByRole('button', { name: 'Analyze Photos' }).click();
  await expect(page.getByRole('button', { name: 'Analyzing...' })).toBeDisabled();
  await expect(page.getByText('All photos analyzed! Smart albums are available.')).toBeVisible({ timeout: 200_000 });
  await expect(page.getByText('10/10 analyzed')).toBeVisible();
  await expect(page.getByText('Analysis Complete')).toBeVisible();

  // Categories: underscores become spaces.
  await page.getByRole('tab', { name: 'Categories' }).click();
  const headings = page.getByRole('tabpanel').getByRole('heading', { level: 3 });
  await expect(headings.first()).toBeVisible();
  const names = await headings.allTextContents();
  expect(names.length).toBeGreaterThan(1);
  for (const n of names) expect(n).not.toContain('_');
  expect(names.some((n) => n.includes(' '))).toBe(true);

  // Smart albums exist after analysis.
  await page.getByRole('tab', { name: 'Albums' }).click();
  await expect(page.getByText('Smart Album').first()).toBeVisible();

  // Blank name is refused.
  await page.getByRole('tab', { name: 'Photos' }).click();
  const tiles = page.getByRole('list', { name: 'Photos' }).getByRole('button');
  await tiles.nth(0).click();
  await expect(page.getByText('1 photos selected')).toBeVisible();
  await page.getByRole('button', { name: 'Create Album' }).click();
  await expect(page.getByText('Invalid Input')).toBeVisible();

  await tiles.nth(1).click();
  await expect(page.getByText('2 photos selected')).toBeVisible();
  await page.getByLabel('Album name').fill('Weekend Picks');
  await page.getByRole('button', { name: 'Create Album' }).click();
  await expect(page.getByText('Album Created')).toBeVisible();
  await expect(page.getByText('photos selected')).toHaveCount(0);

  await page.getByRole('tab', { name: 'Albums' }).click();
  const album = page.getByRole('listitem').filter({ hasText: 'Weekend Picks' });
  await expect(album).toBeVisible();
  await expect(album.getByText('Album with 2 photos')).toBeVisible();
  await expect(album.getByText('Smart Album')).toHaveCount(0);
});
