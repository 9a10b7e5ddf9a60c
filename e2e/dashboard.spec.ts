import { expect, test } from '@playwright/test';
import { register } from './helpers';

test('a new user sees the onboarding after about 1 s, steps through it, and it stays closed after reload', async ({
  page,
}) => {
  await register(page);
  const guide = page.getByRole('dialog', { name: 'Setup Guide' });
  await expect(guide).toBeVisible({ timeout: 4000 });
  await expect(guide.getByText('Step 1 of 7', { exact: true })).toBeVisible();
  await expect(guide.getByText('14%')).toBeVisible();
  await expect(guide.getByRole('button', { name: 'Previous' })).toBeDisabled();
  for (let step = 2; step <= 7; step++) {
    await guide.getByRole('button', { name: 'Next' }).click();
    await expect(guide.getByText(`Step ${step} of 7`, { exact: true })).toBeVisible();
  }
  await expect(guide.getByText('100%')).toBeVisible();
  await guide.getByRole('button', { name: 'Previous' }).click();
  await expect(guide.getByText('Step 6 of 7', { exact: true })).toBeVisible();
  await guide.getByRole('button', { name: 'Next' }).click();
  await guide.getByRole('button', { name: 'Get Started' }).click();
  await expect(guide).toBeHidden();

  // After a reload, let more than the 1 s delay pass on a controlled clock: it does not come back.
  await page.clock.install();
  await page.reload();
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
  await page.clock.runFor(3000);
  await expect(page.getByRole('dialog', { name: 'Setup Guide' })).toHaveCount(0);

  // Settings reopens it and, once completed, resets it to step 1.
  await page.goto('/settings');
  await page.getByRole('button', { name: 'View Tutorial' }).click();
  await expect(
    page.getByRole('dialog', { name: 'Setup Guide' }).getByText('Step 1 of 7', { exact: true }),
  ).toBeVisible();
  await page.getByRole('button', { name: 'Close', exact: true }).click();
  await page.getByRole('button', { name: 'Reset Tutorial' }).click();
  await expect(
    page.getByRole('dialog', { name: 'Setup Guide' }).getByText('Step 1 of 7', { exact: true }),
  ).toBeVisible();
});

test('dashboard cards show the spec texts and points come from the server', async ({ page }) => {
  await page.addInitScript(() => {
    localStorage.setItem('eyevu-onboarding-completed', 'true');
  });
  await register(page);
  await expect(page.getByRole('heading', { name: 'Hi, Grace' })).toBeVisible();
  await expect(page.getByText(/^Member for 0 days • \d+ photos$/)).toBeVisible();
  // The daily login reward (10) is granted by the server on app load.
  await expect(page.getByTestId('total-points')).toHaveText('10 pts');
  await expect(page.getByText('Ads Skipped')).toBeVisible();
  await expect(page.getByText('Time Saved')).toBeVisible();
  await expect(page.getByText('Avg/Day')).toBeVisible();
  const plan = page.getByTestId('plan-card');
  await expect(plan.getByText('Free Plan')).toBeVisible();
  await expect(plan.getByText('Limited features')).toBeVisible();
  await expect(plan.getByRole('link', { name: 'Upgrade' })).toHaveAttribute('href', '/pricing');
  await expect(page.getByRole('heading', { name: 'Recent Photos' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'View All', exact: true })).toHaveAttribute('href', '/gallery');
  await expect(page.getByText(/^\d+ total photos • \d+ analyzed$/)).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Your Insights' })).toBeVisible();
  await expect(page.getByText('Efficiency Score')).toBeVisible();
  await expect(page.getByText('Photos Organized')).toBeVisible();
  await expect(page.getByText('Weekly Progress')).toHaveCount(0);
  await expect(page.getByTestId('points-chart')).toBeVisible();
  await expect(page.getByText('No activities yet')).toBeVisible();
  await expect(page.getByText('Start skipping ads to see your activity')).toBeVisible();
  await expect(page.getByRole('link', { name: 'View Gallery' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Organize Photos' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Start Tutorial' })).toBeVisible();

  // Status card: activate pays the activation reward once and lights the status bar badge.
  const status = page.getByTestId('status-card');
  await expect(status.getByRole('heading', { name: 'Inactive' })).toBeVisible();
  await expect(status.getByText('Ad monitoring is off')).toBeVisible();
  await status.getByRole('button', { name: 'Activate' }).click();
  await expect(status.getByRole('heading', { name: 'Eyevu Active' })).toBeVisible();
  await expect(status.getByText('Eyevu is running in the background')).toBeVisible();
  await expect(status.getByText('Monitoring')).toBeVisible();
  await expect(status.getByText('Active for less than a minute')).toBeVisible();
  await expect(page.getByRole('banner').getByText('Active', { exact: true })).toBeVisible();
  await expect(page.getByTestId('reward-popup')).toContainText('Ready to save time!');
  await expect(page.getByTestId('notification-toast')).toContainText('App activated!');
  await expect(page.getByTestId('total-points')).toHaveText('25 pts');
  await status.getByRole('button', { name: 'Deactivate' }).click();
  await expect(status.getByRole('heading', { name: 'Inactive' })).toBeVisible();
  await expect(page.getByRole('banner').getByText('Active', { exact: true })).toHaveCount(0);
  await status.getByRole('button', { name: 'Activate' }).click();
  await expect(page.getByTestId('total-points')).toHaveText('25 pts');

  // A free user asking for the ad overlay is told it needs a subscription.
  await page.getByRole('button', { name: 'YouTube (30s)' }).click();
  await expect(page.getByText('Premium subscription required for ad overlay')).toBeVisible();
  await page.getByRole('button', { name: 'Close', exact: true }).click();
  await expect(page.getByText('Premium subscription required for ad overlay')).toHaveCount(0);

  // Reload: the points are the server's, the login reward is not paid twice.
  await page.reload();
  await expect(page.getByTestId('total-points')).toHaveText('25 pts');
});

test('a theme chosen in Settings persists across reload', async ({ page }) => {
  await page.addInitScript(() => {
    localStorage.setItem('eyevu-onboarding-completed', 'true');
  });
  await register(page);
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'purple');
  await page.goto('/settings');
  await expect(page.getByRole('heading', { name: 'Theme Customizer' })).toBeVisible();
  await page.getByRole('group', { name: 'Theme' }).getByText('Dark', { exact: true }).click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await expect(page.locator('html')).toHaveClass(/dark/);
  // The status bar's picker shows the same store.
  await expect(page.getByLabel('Theme', { exact: true }).first()).toHaveValue('dark');
  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await expect(page.getByRole('radio', { name: 'Dark' })).toBeChecked();
  await page.getByRole('group', { name: 'Theme' }).getByText('Green', { exact: true }).click();
  await page.goto('/');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'green');
  await expect(page.getByRole('button', { name: 'Manage Subscription' })).toHaveCount(0);
});
