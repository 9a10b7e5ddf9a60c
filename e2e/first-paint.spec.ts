import { expect, test, type Page } from '@playwright/test';
import { register } from './helpers';

// The scripts are held back by page.route, which a service worker answering from its cache would pass by.
test.use({ serviceWorkers: 'block' });

/** Where the product name and the greeting sit on screen. */
async function positions(page: Page) {
  const name = await page.getByRole('banner').getByText('Eyevu', { exact: true }).boundingBox();
  const greeting = await page.getByRole('heading', { name: 'Hi, Grace' }).boundingBox();
  return { name, greeting };
}

test('the painted first screen does not move when the app takes over', async ({ page }) => {
  await page.addInitScript(() => localStorage.setItem('eyevu-onboarding-completed', 'true'));
  await register(page);

  // The server's painted dashboard, its scripts held until it has been measured.
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route(/\/assets\/.+\.js$/, async (route) => {
    await released;
    await route.continue();
  });
  await page.goto('/', { waitUntil: 'commit' });
  await expect(page.getByRole('heading', { name: 'Hi, Grace' })).toBeVisible();
  await expect(page.getByRole('combobox', { name: 'Theme' })).toHaveCount(0);
  const painted = await positions(page);

  release();
  // The app's own bar: the theme picker is the control the painted shape stood for.
  await expect(page.getByRole('combobox', { name: 'Theme' })).toBeVisible();
  await expect(page.getByTestId('total-points')).toBeVisible();
  const app = await positions(page);

  expect(app.name!.x).toBeCloseTo(painted.name!.x, 0);
  expect(app.name!.y).toBeCloseTo(painted.name!.y, 0);
  expect(app.greeting!.y).toBeCloseTo(painted.greeting!.y, 0);
});
