import { expect, test, type Page } from '@playwright/test';
import { pauseClock, register } from './helpers';

/** What the screen shows right now of the four things a first load can raise. */
async function onScreen(page: Page) {
  const seen: string[] = [];
  if (await page.getByRole('dialog', { name: 'Setup Guide' }).isVisible()) seen.push('guide');
  for (const id of ['toast', 'reward-popup', 'notification-toast']) {
    const el = page.getByTestId(id);
    if (await el.isVisible()) seen.push(`${id}: ${(await el.textContent())?.trim()}`);
  }
  return seen;
}

test('a new account meets one thing at a time: the Setup Guide, then its welcome, then the first-login reward', async ({
  page,
}) => {
  await page.clock.install();
  const loginReward = page.waitForResponse(
    (r) => r.url().endsWith('/api/rewards/record') && r.request().method() === 'POST',
  );
  await register(page);
  const guide = page.getByRole('dialog', { name: 'Setup Guide' });
  await expect(guide).toBeVisible({ timeout: 4000 });
  expect((await (await loginReward).json()).points).toBe(10);
  // The reward is paid, yet nothing covers the guide, however long it stays open.
  await pauseClock(page);
  await page.clock.runFor(30_000);
  expect(await onScreen(page)).toEqual(['guide']);

  await guide.getByRole('button', { name: 'Close', exact: true }).click();
  await expect(guide).toBeHidden();
  await expect(page.getByTestId('toast')).toContainText('Account created!');
  expect(await onScreen(page)).toHaveLength(1);

  await page.clock.runFor(5000);
  const popup = page.getByTestId('reward-popup');
  await expect(popup).toContainText('+10 pts');
  await expect(popup).toContainText('Welcome!');
  await expect(popup).not.toContainText('Welcome back');
  expect(await onScreen(page)).toHaveLength(1);

  await page.clock.runFor(2500);
  await expect(page.getByTestId('notification-toast')).toHaveText('Welcome!');
  expect(await onScreen(page)).toHaveLength(1);

  await page.clock.runFor(3000);
  await expect(page.getByTestId('notification-toast')).toHaveCount(0);
  expect(await onScreen(page)).toEqual([]);
});
