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
