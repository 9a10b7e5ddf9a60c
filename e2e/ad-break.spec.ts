import { expect, test, type Page } from '@playwright/test';
import { pauseClock, register } from './helpers';

/** Skips the onboarding modal so the fake clock does not pop it over the dashboard. */
async function quietOnboarding(page: Page) {
  await page.addInitScript(() => {
    localStorage.setItem('eyevu-onboarding-completed', 'true');
    localStorage.setItem('eyevu-onboarding-seen', 'true');
  });
}

/** The upgrade modal's free trial, through the API with the page's session. */
async function subscribe(page: Page) {
  const res = await page.request.post('/api/subscription', {
    data: { plan: 'monthly', status: 'active', price: 499 },
  });
  expect(res.ok()).toBeTruthy();
}

const statValue = (page: Page, label: string) =>
  page.getByText(label, { exact: true }).locator('xpath=preceding-sibling::p[1]');

test('an Instagram ad break the server started counts down, records one activity and shows the skip reward', async ({
  page,
}) => {
  await quietOnboarding(page);
  await page.clock.install();
  await register(page);
  await subscribe(page);
  await page.reload();
  await expect(statValue(page, 'Ads Skipped')).toHaveText('0');
  // The screen knows the plan before the ad starts; a click before that would offer the upgrade.
  await expect(page.getByText('Premium Plan')).toBeVisible();

  const started = page.waitForResponse((r) => r.url().endsWith('/api/ad-breaks') && r.request().method() === 'POST');
  // The server painted the plan and the stats (static copies); the ad buttons come only with React's
  // own screen, once every answer has reached it. That must happen before the clock stops: a paused
  // clock would hold those answers (and the painted copy) forever.
  const instagram = page.getByRole('button', { name: 'Instagram (15s)' });
  await expect(instagram).toBeVisible();
  // The page clock stands still while the overlay opens, so a slow machine cannot tick the countdown
  // before it is read; it flows again (with real time) once the first second has been checked.
  await pauseClock(page);
  await instagram.click();
  const adBreak = (await (await started).json()) as { id: string };
  const gallery = page.getByRole('dialog', { name: 'Your Photos' });
  await expect(gallery).toBeVisible();
  await expect(page.getByText('Sample Advertisement')).toBeAttached();
  await expect(page.getByText('Ad continues playing behind gallery')).toBeAttached();
  // As a screen reader reads it: the words are visually hidden text inside the badge.
  await expect(gallery.getByTestId('viewer-countdown')).toHaveText('Ad ends in 0:15');
  await page.clock.runFor(1000);
  await expect(gallery.getByTestId('viewer-countdown')).toHaveText('Ad ends in 0:14');
  await page.clock.resume();

  // The server times the ad break and counts it only once its 15 s have passed on the server's
  // clock, so this one ad really plays: the installed page clock flows with real time (jumping it
  // ahead would only earn a refusal), and the countdown reaches 0 just after the server's endsAt.
  const posted = page.waitForRequest((r) => r.url().endsWith('/api/activities') && r.method() === 'POST', {
    timeout: 30_000,
  });
  const request = await posted;
  expect(request.headers()['idempotency-key']).toBe(adBreak.id);
  expect(request.postDataJSON()).toMatchObject({ app: 'Instagram', adDuration: 15, timeSaved: 15 });

  await expect(page.getByTestId('reward-popup')).toContainText('Ad skipped! +2 pts');
  await expect(gallery).toHaveCount(0);
  await expect(statValue(page, 'Ads Skipped')).toHaveText('1');
  await expect(page.getByText('+1 pts')).toBeVisible();

  const list = await page.request.get('/api/activities');
  expect(await list.json()).toHaveLength(1);
});

test('the mini-game opens from the overlay and a trivia round gives feedback', async ({ page }) => {
  await quietOnboarding(page);
  await page.clock.install();
  await register(page);
  await subscribe(page);
  await page.reload();

  await page.getByRole('button', { name: 'YouTube (30s)' }).click();
  await page.getByRole('dialog', { name: 'Your Photos' }).getByRole('button', { name: 'Play Game' }).click();
  const game = page.getByRole('dialog', { name: 'Ad Break Mini-Game' });
  await expect(game.getByText('YouTube ad • 30s')).toBeVisible();
  await expect(game.getByRole('heading', { name: 'Choose Your Game' })).toBeVisible();
  await game.getByRole('button', { name: /Quick Trivia/ }).click();
  await game.getByRole('button', { name: 'Start Game' }).click();
  await expect(game.getByText('Question 1/8')).toBeVisible();

  await game.getByRole('button', { name: /^A\. / }).click();
  await expect(game.getByRole('status')).toHaveText(/^(Correct! \+10 points|Incorrect\. The answer was .+\.)$/);
  await expect(game.getByRole('button', { name: /^B\. / })).toHaveAttribute('aria-disabled', 'true');
  await page.clock.runFor(2000);
  await expect(game.getByText('Question 2/8')).toBeVisible();
  await game.getByRole('button', { name: /^B\. / }).click();
  await expect(game.getByRole('status')).toHaveText(/^(Correct! \+10 points|Incorrect\. The answer was .+\.)$/);
});
