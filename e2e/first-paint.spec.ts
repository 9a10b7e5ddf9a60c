import { expect, test, type Page } from '@playwright/test';
import { register } from './helpers';

// The scripts are held back by page.route, which a service worker answering from its cache would pass by.
test.use({ serviceWorkers: 'block' });

/** Where the product name sits on screen. */
function productName(page: Page) {
  return page.getByRole('banner').getByText('Eyevu', { exact: true }).boundingBox();
}

/** Where the product name and the greeting sit on screen. */
async function positions(page: Page) {
  const name = await productName(page);
  const greeting = await page.getByRole('heading', { name: 'Hi, Grace' }).boundingBox();
  return { name, greeting };
}

/** Holds the app's scripts until the returned function is called, so the painted page can be measured. */
async function holdScripts(page: Page): Promise<() => void> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route(/\/assets\/.+\.js$/, async (route) => {
    await released;
    await route.continue();
  });
  return release;
}

test('the painted first screen does not move when the app takes over', async ({ page }) => {
  await page.addInitScript(() => localStorage.setItem('eyevu-onboarding-completed', 'true'));
  await register(page);

  // The server's painted dashboard, its scripts held until it has been measured.
  const release = await holdScripts(page);
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

test("an active user's product name stays put on the painted pricing page, which cannot show the badge", async ({
  page,
}) => {
  await page.addInitScript(() => localStorage.setItem('eyevu-onboarding-completed', 'true'));
  // Every layout shift from the page's first frame (none may be recorded: CLS 0).
  await page.addInitScript(() => {
    const shifts: number[] = [];
    (window as unknown as { layoutShifts: number[] }).layoutShifts = shifts;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) shifts.push((entry as unknown as { value: number }).value);
    }).observe({ type: 'layout-shift', buffered: true });
  });
  await register(page);
  expect((await page.request.post('/api/app-status/activate')).ok()).toBe(true);

  // `/pricing` is one cached page for every signed-in user: its painted bar has no Active badge.
  const release = await holdScripts(page);
  await page.goto('/pricing', { waitUntil: 'commit' });
  const banner = page.getByRole('banner');
  await expect(page.getByRole('heading', { name: 'Choose Your Plan' })).toBeVisible();
  await expect(page.getByRole('combobox', { name: 'Theme' })).toHaveCount(0);
  await expect(banner.getByText('Active', { exact: true })).toHaveCount(0);
  const painted = await productName(page);
  const heading = await page.getByRole('heading', { name: 'Choose Your Plan' }).boundingBox();

  release();
  // The app's bar, with the badge the painted page could not know of.
  await expect(page.getByRole('combobox', { name: 'Theme' })).toBeVisible();
  await expect(banner.getByText('Active', { exact: true })).toBeVisible();
  await expect(page.getByRole('button', { name: /monthly/i })).toBeVisible();
  const app = await productName(page);

  // Placed between the clock and the right side, the name moved left by half the badge (~27 px).
  expect(app!.x).toBeCloseTo(painted!.x, 0);
  expect(app!.y).toBeCloseTo(painted!.y, 0);
  const headingNow = await page.getByRole('heading', { name: 'Choose Your Plan' }).boundingBox();
  expect(headingNow!.y).toBeCloseTo(heading!.y, 0);
  expect(await page.evaluate(() => (window as unknown as { layoutShifts: number[] }).layoutShifts)).toEqual([]);
});

test("the painted gallery's photos and month stay put when the app takes over", async ({ page }) => {
  await page.addInitScript(() => localStorage.setItem('eyevu-onboarding-completed', 'true'));
  await register(page);
  const main = page.getByRole('main');
  const boxes = async () => ({
    heading: await page.getByRole('heading', { name: 'Photo Gallery' }).boundingBox(),
    month: await main.getByRole('heading', { level: 2 }).first().boundingBox(),
    first: await main.getByRole('img').nth(0).boundingBox(),
    second: await main.getByRole('img').nth(1).boundingBox(),
  });

  const release = await holdScripts(page);
  await page.goto('/gallery', { waitUntil: 'commit' });
  await expect(page.getByTestId('first-paint-grid')).toBeVisible();
  const painted = await boxes();

  release();
  await expect(page.getByTestId('photo-tile').first()).toBeVisible();
  await expect(page.getByTestId('first-paint-grid')).toHaveCount(0);
  const app = await boxes();
  expect(app).toEqual(painted);
});
