import { expect, test } from '@playwright/test';
import { register } from './helpers';

test.beforeEach(async ({ page }) => {
  // The onboarding tutorial is not under test here: mark it seen so it does not cover the editor.
  await page.addInitScript(() => {
    localStorage.setItem('eyevu-onboarding-completed', 'true');
    localStorage.setItem('eyevu-onboarding-seen', 'true');
  });
});

test('the editor opens the demo photo with six real filter swatches', async ({ page }) => {
  await register(page);
  await page.goto('/photo-editor');
  await expect(page.getByRole('heading', { name: 'Coffee Cup' })).toBeVisible();
  const names = ['Vintage', 'Dramatic', 'Soft Portrait', 'Vibrant', 'Classic B&W', 'Golden Hour'];
  for (const name of names) await expect(page.getByRole('button', { name: new RegExp(`^${name}`) })).toBeVisible();
  await expect(page.getByRole('button', { name: /^Vintage/ })).toContainText('warm nostalgic film effect');
  // Every swatch is a real rendition that loaded.
  const swatches = page.locator('img[src*="/api/photo-filters/render"][src*="size=swatch"]');
  await expect(swatches).toHaveCount(6);
  for (let i = 0; i < 6; i++) {
    await expect(swatches.nth(i)).toHaveJSProperty('complete', true);
    expect(await swatches.nth(i).evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
  }
  await expect(page.getByRole('button', { name: 'Apply Filter' })).toBeDisabled();
  await expect(page.getByRole('slider')).toHaveCount(0);
  await page.getByRole('link', { name: 'Back to gallery' }).click();
  await expect(page.getByRole('heading', { name: 'Photo Gallery' })).toBeVisible();
});

test('edit a photo from the gallery: preview, intensity, apply, and the gallery shows the edit', async ({ page }) => {
  await register(page);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Gallery', exact: true }).click();
  const tile = page.getByRole('button', { name: 'Open Fig in a Red Bowl' });
  const tileImg = tile.getByRole('img');
  await expect(tileImg).toHaveJSProperty('complete', true);
  const before = await tileImg.getAttribute('src');
  expect(before).toContain('/thumbnail?v=');

  await tile.click();
  const viewer = page.getByRole('dialog', { name: 'Your Photos' });
  await viewer.getByRole('link', { name: 'Edit' }).click();
  await expect(page).toHaveURL(/\/photo-editor\?photoId=/);
  await expect(page.getByRole('heading', { name: 'Fig in a Red Bowl' })).toBeVisible();

  const image = page.getByTestId('editor-image');
  await page.getByRole('button', { name: /^Classic B&W/ }).click();
  await expect(page.getByRole('button', { name: /^Classic B&W/ })).toHaveAttribute('aria-pressed', 'true');
  await expect(image).toHaveAttribute('src', /filterName=black_white&intensity=100&size=preview/);
  await expect(page.getByText('Generating preview...')).toHaveCount(0);
  await expect(image).toHaveJSProperty('complete', true);

  const slider = page.getByRole('slider', { name: 'Intensity' });
  await expect(slider).toHaveAttribute('aria-valuenow', '100');
  await slider.focus();
  await page.keyboard.press('ArrowRight');
  await expect(slider).toHaveAttribute('aria-valuenow', '110');
  await expect(image).toHaveAttribute('src', /filterName=black_white&intensity=110&size=preview/);
  await expect(page.getByText('Generating preview...')).toHaveCount(0);

  await page.getByRole('button', { name: 'Apply Filter' }).click();
  await expect(page.getByText('Filter Applied')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Revert to original' })).toBeVisible();

  await page.getByRole('link', { name: 'Back to gallery' }).click();
  const after = page.getByRole('button', { name: 'Open Fig in a Red Bowl' }).getByRole('img');
  await expect(after).not.toHaveAttribute('src', before!);
  await expect(after).toHaveJSProperty('complete', true);
  // The new thumbnail is grey: black and white applied.
  const spread = await after.evaluate((img: HTMLImageElement) => {
    const c = document.createElement('canvas');
    c.width = img.naturalWidth;
    c.height = img.naturalHeight;
    const ctx = c.getContext('2d')!;
    ctx.drawImage(img, 0, 0);
    const d = ctx.getImageData(0, 0, c.width, c.height).data;
    let sum = 0;
    for (let i = 0; i < d.length; i += 4)
      sum += Math.max(d[i]!, d[i + 1]!, d[i + 2]!) - Math.min(d[i]!, d[i + 1]!, d[i + 2]!);
    return sum / (d.length / 4);
  });
  expect(spread).toBeLessThan(3);
});
