import { expect, test } from '@playwright/test';
import { register } from './helpers';

// The service worker would answer chunk requests from its cache, out of the page's routes' reach.
test.use({ serviceWorkers: 'block' });

test('a screen whose code cannot be fetched shows Something went wrong with Reload and Go home, not a blank page', async ({
  page,
}) => {
  await page.addInitScript(() => {
    localStorage.setItem('eyevu-onboarding-completed', 'true');
    localStorage.setItem('eyevu-onboarding-seen', 'true');
  });
  await register(page);
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();

  // The connection drops just as the Gallery's code is needed.
  const galleryChunk = /\/assets\/gallery-page-[^/]+\.js$/;
  await page.route(galleryChunk, (route) => route.abort('internetdisconnected'));
  const nav = page.getByRole('navigation', { name: 'Main' });
  await nav.getByRole('link', { name: 'Gallery', exact: true }).click();
  const alert = page.getByRole('alert').filter({ hasText: 'Something went wrong' });
  await expect(alert).toBeVisible();
  await expect(alert).toContainText('This screen could not be loaded.');
  await expect(alert.getByRole('button', { name: 'Reload' })).toBeVisible();

  // Go home leads back to a working screen; the shell stayed usable throughout.
  await alert.getByRole('button', { name: 'Go home' }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(alert).toHaveCount(0);

  // Still offline, the screen fails again; back online, Reload fetches its code and shows it.
  await nav.getByRole('link', { name: 'Gallery', exact: true }).click();
  await expect(alert).toBeVisible();
  await page.unroute(galleryChunk);
  await alert.getByRole('button', { name: 'Reload' }).click();
  await expect(page.getByRole('heading', { name: 'Photo Gallery' })).toBeVisible();
  await expect(alert).toHaveCount(0);
});
