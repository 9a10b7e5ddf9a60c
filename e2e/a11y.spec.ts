import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { register } from './helpers';

/**
 * WCAG 2.2 AA with axe: every route signed out and signed in, every dialog, and colour contrast in
 * all seven themes on a few key routes. Serious and critical violations fail the test.
 */
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

async function expectAccessible(page: Page, label: string, options: { rules?: string[] } = {}) {
  let builder = new AxeBuilder({ page });
  builder = options.rules ? builder.withRules(options.rules) : builder.withTags(TAGS);
  const { violations } = await builder.analyze();
  const serious = violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({
      rule: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 4).map((n) => `${n.target.join(' ')} :: ${n.failureSummary?.split('\n')[1] ?? ''}`),
    }));
  expect(serious, `${label}: ${JSON.stringify(serious, null, 2)}`).toEqual([]);
}

async function quietOnboarding(page: Page) {
  await page.addInitScript(() => {
    localStorage.setItem('eyevu-onboarding-completed', 'true');
    localStorage.setItem('eyevu-onboarding-seen', 'true');
  });
}

async function subscribe(page: Page) {
  const endDate = new Date(Date.now() + 30 * 86_400_000).toISOString();
  const res = await page.request.post('/api/subscription', {
    data: { plan: 'monthly', status: 'active', endDate, price: 499 },
  });
  expect(res.ok()).toBeTruthy();
}

test('signed-out routes have no serious violations', async ({ page }) => {
  for (const [path, heading] of [
    ['/', 'Welcome to Eyevu'],
    ['/register', /Create/],
    ['/forgot-password', /Forgot|Reset/],
    ['/pricing', /Plan|Pricing/],
    ['/no-such-page', /not found|404/i],
  ] as const) {
    await page.goto(path);
    await expect(page.getByRole('heading', { name: heading }).first()).toBeVisible();
    await expectAccessible(page, path);
  }
  // A form error is tied to its field.
  await page.goto('/login');
  await page.getByRole('button', { name: 'Sign In' }).click();
  const email = page.getByLabel('Email');
  await expect(email).toHaveAttribute('aria-invalid', 'true');
  await expect(email).toHaveAccessibleDescription(/.+/);
  await expectAccessible(page, '/login with errors');
});

test('signed-in routes and dialogs have no serious violations', async ({ page }) => {
  test.setTimeout(120_000);
  await register(page);

  // Onboarding appears for a new account after about a second.
  const guide = page.getByRole('dialog', { name: 'Setup Guide' });
  await expect(guide).toBeVisible({ timeout: 4000 });
  await expectAccessible(page, 'onboarding');
  await page.keyboard.press('Escape');
  await expect(guide).toBeHidden();

  for (const [path, heading] of [
    ['/', /^Hi, /],
    ['/gallery', 'Photo Gallery'],
    ['/organizer', /Organi[sz]er|AI/],
    ['/photo-editor', /Editor/],
    ['/pricing', /Plan|Pricing/],
    ['/checkout?tier=premium&billing=monthly', /Purchase|Payment/],
    ['/billing', /Billing|Subscription/],
    ['/settings', /Settings/],
    ['/no-such-page', /not found|404/i],
  ] as const) {
    await page.goto(path);
    await expect(page.getByRole('heading', { name: heading }).first()).toBeVisible();
    await expectAccessible(page, path);
  }

  // Upgrade modal (billing offers the trial once); focus returns to its opener on close.
  await page.goto('/billing');
  const trialButton = page.getByRole('button', { name: 'Start Free Trial' });
  await trialButton.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('dialog')).toBeVisible();
  await expect(page.getByRole('dialog').getByRole('button', { name: 'Close' })).toBeFocused();
  await page.keyboard.press('Shift+Tab');
  await expect(page.getByRole('dialog').locator(':focus')).toHaveCount(1);
  await expectAccessible(page, 'upgrade modal');
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(trialButton).toBeFocused();

  // Gallery viewer.
  await page.goto('/gallery');
  await page.getByTestId('photo-tile').first().focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('dialog', { name: 'Your Photos' })).toBeVisible();
  await expectAccessible(page, 'photo viewer');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('photo-tile').first()).toBeFocused();

  // Reward popup from the status card.
  await page.goto('/');
  await page.getByTestId('status-card').getByRole('button', { name: 'Activate' }).click();
  await expect(page.getByTestId('reward-popup')).toBeVisible();
  await expectAccessible(page, 'reward popup');

  // Ad overlay, its viewer and the mini-game (a free trial unlocks the overlay).
  await subscribe(page);
  await page.reload();
  await page.getByRole('button', { name: 'YouTube (30s)' }).click();
  const overlayViewer = page.getByRole('dialog', { name: 'Your Photos' });
  await expect(overlayViewer).toBeVisible();
  await expectAccessible(page, 'ad overlay viewer');
  await overlayViewer.getByRole('button', { name: 'Play Game' }).click();
  const game = page.getByRole('dialog', { name: 'Ad Break Mini-Game' });
  await expect(game.getByRole('heading', { name: 'Choose Your Game' })).toBeVisible();
  await expectAccessible(page, 'mini-game selection');
  await game.getByRole('button', { name: /Memory Match/ }).click();
  await game.getByRole('button', { name: 'Start Game' }).click();
  await game.getByRole('button', { name: 'Card 1', exact: true }).click();
  await expectAccessible(page, 'memory game');
  await page.keyboard.press('Escape');
  await expect(game).toHaveCount(0);
  await page.keyboard.press('Escape');
  await expect(overlayViewer).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Back to Photos' })).toBeVisible();
  await expectAccessible(page, 'ad overlay');

  // Cancel confirmation on billing (the trial is active now).
  await page.goto('/billing');
  await page.getByRole('button', { name: 'Cancel Subscription' }).click();
  await expect(page.getByRole('dialog')).toBeVisible();
  await expectAccessible(page, 'cancel confirmation');
});

test('colour contrast passes in all seven themes', async ({ page }) => {
  test.setTimeout(120_000);
  await quietOnboarding(page);
  await register(page);
  for (const theme of ['light', 'dark', 'auto', 'purple', 'blue', 'green', 'orange']) {
    await page.evaluate((t) => localStorage.setItem('eyevu-theme', t), theme);
    for (const path of ['/', '/pricing', '/settings']) {
      await page.goto(path);
      await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
      await expect(page.getByRole('heading').first()).toBeVisible();
      await expectAccessible(page, `${theme} ${path}`, { rules: ['color-contrast'] });
    }
  }
});
