import { expect, type Page } from '@playwright/test';
import { randomBytes } from 'node:crypto';

export function newAccount() {
  return {
    firstName: 'Grace',
    lastName: 'Hopper',
    email: `grace-${randomBytes(4).toString('hex')}@example.com`,
    password: 'secret123',
  };
}

export async function register(page: Page, account = newAccount()) {
  await page.goto('/register');
  await page.getByLabel('First Name').fill(account.firstName);
  await page.getByLabel('Last Name').fill(account.lastName);
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await page.getByRole('button', { name: 'Create Account' }).click();
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
  return account;
}

export async function login(page: Page, email: string, password: string) {
  await page.goto('/login');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
}

/**
 * Stops the installed page clock at the page's own current time, so nothing is fast-forwarded: every
 * timer pending in the page still fires at its own time, under the test's later runFor() calls.
 *
 * pauseAt() takes an absolute time while the page's time keeps flowing as the request travels: a time
 * read from the page is already behind when the pause arrives, and a margin ahead of it is a guess that
 * a loaded machine outruns ("Cannot fast-forward to the past"); a margin that holds jumps the page's
 * time and fires every timer due before it at once. Playwright's pauseAt stops the flow before it
 * compares, so asking for the time just read either lands on it exactly (nothing elapsed) or is refused
 * with the clock already standing: the next read is then the time it stands at, which consumes nothing.
 *
 * While paused, the app's query answers reach the screen only when the test moves time (TanStack Query
 * delivers them through a setTimeout of 0): pause once the screen the test drives shows its answers.
 */
export async function pauseClock(page: Page): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const now = await page.evaluate(() => Date.now());
    try {
      await page.clock.pauseAt(now);
      return now;
    } catch (err) {
      if (!/fast-forward to the past/i.test(String(err))) throw err;
      if (attempt === 3) throw new Error('the page clock still ran after three refused pauses', { cause: err });
    }
  }
}
