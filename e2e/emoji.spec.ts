import { expect, test, type Locator } from '@playwright/test';
import { pauseClock, register } from './helpers';

/**
 * This Chromium has no colour emoji font, so emoji characters would render as empty boxes: the
 * game's emojis are images shipped with the app, and each must really have loaded.
 */
async function expectLoadedImage(img: Locator) {
  await expect(img).toBeVisible();
  await expect
    .poll(() => img.evaluate((el: HTMLImageElement) => (el.complete ? el.naturalWidth : 0)))
    .toBeGreaterThan(0);
}

test('Memory Match shows every emoji as a loaded image, and each card keeps its name', async ({ page }) => {
  test.setTimeout(90_000);
  await page.addInitScript(() => {
    localStorage.setItem('eyevu-onboarding-completed', 'true');
    localStorage.setItem('eyevu-onboarding-seen', 'true');
  });
  await page.clock.install();
  await register(page);
  const sub = await page.request.post('/api/subscription', { data: { plan: 'monthly', status: 'active', price: 499 } });
  expect(sub.ok()).toBeTruthy();
  await page.reload();

  await page.getByRole('button', { name: 'YouTube (30s)' }).click();
  await page.getByRole('dialog', { name: 'Your Photos' }).getByRole('button', { name: 'Play Game' }).click();
  const game = page.getByRole('dialog', { name: 'Ad Break Mini-Game' });
  await game.getByRole('button', { name: /Memory Match/ }).click();
  // The intro's icon (a brain) is an image too.
  await expectLoadedImage(game.locator('img[data-emoji]').first());
  await game.getByRole('button', { name: 'Start Game' }).click();
  // Time stands still while the test plays; it moves only where the game waits (the flip-back).
  await pauseClock(page);

  const cards = game.getByRole('list', { name: 'Memory cards' }).getByRole('button');
  await expect(cards.first()).toBeVisible();
  const n = await cards.count();
  const card = (i: number) => game.getByRole('button', { name: new RegExp(`^Card ${i + 1}(:|$)`) });
  const flip = async (i: number) => {
    await card(i).click();
    await expect(card(i)).toHaveAttribute('aria-label', /: /);
    // Face up: an image, loaded, showing the emoji the card is named after.
    const label = (await card(i).getAttribute('aria-label'))!;
    const emoji = label.split(': ')[1]!.split(',')[0]!;
    const img = card(i).locator('img');
    await expect(img).toHaveAttribute('data-emoji', emoji);
    await expectLoadedImage(img);
    return emoji;
  };

  const seen = new Map<number, string>();
  const matched = new Set<number>();
  while (matched.size < n) {
    const a =
      [...Array(n).keys()].find((i) => !matched.has(i) && !seen.has(i)) ??
      [...Array(n).keys()].find((i) => !matched.has(i))!;
    const ea = await flip(a);
    seen.set(a, ea);
    const b =
      [...seen].find(([j, e]) => j !== a && e === ea && !matched.has(j))?.[0] ??
      [...Array(n).keys()].find((i) => i !== a && !matched.has(i) && !seen.has(i))!;
    const eb = await flip(b);
    seen.set(b, eb);
    if (ea === eb) matched.add(a).add(b);
    else {
      await page.clock.runFor(1_000);
      await expect(card(b)).toHaveAttribute('aria-label', `Card ${b + 1}`);
    }
  }

  // All pairs found: every card shows its loaded image and is named 'Card N: <emoji>, matched'.
  for (let i = 0; i < n; i++) {
    await expect(card(i)).toHaveAccessibleName(`Card ${i + 1}: ${seen.get(i)}, matched`);
    await expectLoadedImage(card(i).locator('img'));
  }
  // No emoji is left as a bare character in the game.
  expect(
    await game.locator('span[aria-hidden]').evaluateAll((els) => els.map((e) => e.textContent).join('')),
  ).not.toMatch(/\p{Extended_Pictographic}/u);

  await page.clock.runFor(1_000);
  await page.clock.resume();
  await expect(game.getByRole('heading', { name: 'Game Complete!' })).toBeVisible();
  await expectLoadedImage(game.locator('img[data-emoji="🏆"]'));
});
