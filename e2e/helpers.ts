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
 * Stops the installed page clock about `ahead` ms from the page's now. The page's time flows while
 * this call travels, and a loaded machine can take longer than `ahead` to deliver it ("Cannot
 * fast-forward to the past"): then it asks again with four times the margin.
 */
export async function pauseClockSoon(page: Page, ahead: number) {
  for (let margin = ahead; ; margin *= 4) {
    try {
      await page.clock.pauseAt((await page.evaluate(() => Date.now())) + margin);
      return;
    } catch (err) {
      if (margin >= 20_000 || !/fast-forward to the past/i.test(String(err))) throw err;
    }
  }
}
