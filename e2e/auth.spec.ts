import { expect, test } from '@playwright/test';
import { login, newAccount, register } from './helpers';

test('register, keep the session across reload, sign out, sign in, reset the password', async ({ page }) => {
  const account = await register(page);
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole('link', { name: 'Home' })).toHaveAttribute('aria-current', 'page');

  await page.reload();
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();

  await page.goto('/settings');
  await page.getByRole('button', { name: 'Sign Out' }).click();
  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByRole('button', { name: 'Sign In' })).toBeVisible();

  // A signed-in route now shows the login screen.
  await page.goto('/gallery');
  await expect(page.getByRole('button', { name: 'Sign In' })).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Main' })).toHaveCount(0);

  await login(page, account.email, account.password);
  await expect(page.getByText('Welcome to Eyevu!')).toBeVisible();

  await page.goto('/settings');
  await page.getByRole('button', { name: 'Sign Out' }).click();
  await expect(page).toHaveURL(/\/login$/);

  await page.getByRole('link', { name: 'Forgot your password?' }).click();
  await page.getByLabel('Email').fill(account.email);
  await page.getByRole('button', { name: 'Send reset link' }).click();
  await expect(page.getByLabel('Reset Token')).not.toHaveValue('');
  await expect(page.getByText('Demo mode: reset token')).toBeVisible();
  await page.getByLabel('New Password').fill('brandnew1');
  await page.getByRole('button', { name: 'Reset password' }).click();
  await expect(page.getByText('Password reset successfully')).toBeVisible();
  await expect(page).toHaveURL(/\/login$/, { timeout: 5000 });

  await login(page, account.email, 'brandnew1');
});

test('shows validation errors for a 5-character password', async ({ page }) => {
  const account = newAccount();
  await page.goto('/register');
  await page.getByLabel('First Name').fill(account.firstName);
  await page.getByLabel('Last Name').fill(account.lastName);
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password').fill('12345');
  await page.getByRole('button', { name: 'Create Account' }).click();
  await expect(page.getByText('Password must be at least 6 characters')).toBeVisible();
  await expect(page.getByLabel('Password')).toHaveAttribute('aria-invalid', 'true');

  await page.goto('/login');
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password').fill('12345');
  await page.getByRole('button', { name: 'Sign In' }).click();
  await expect(page.getByText('Password must be at least 6 characters')).toBeVisible();
});

test('a wrong password shows the server message', async ({ page }) => {
  const account = await register(page);
  await page.goto('/settings');
  await page.getByRole('button', { name: 'Sign Out' }).click();
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password').fill('wrong-password');
  await page.getByRole('button', { name: 'Sign In' }).click();
  await expect(page.getByText('Invalid email or password')).toBeVisible();
});

test('unknown paths show the not-found screen', async ({ page }) => {
  await page.goto('/no-such-page');
  await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
});

test.describe('in Tokyo', () => {
  test.use({ timezoneId: 'Asia/Tokyo' });

  test("register and sign in send the browser's time zone (it decides the daily login day)", async ({ page }) => {
    const registered = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/api/auth/register'));
    const account = await register(page);
    expect((await registered).postDataJSON()).toMatchObject({ email: account.email, timeZone: 'Asia/Tokyo' });

    await page.goto('/settings');
    await page.getByRole('button', { name: 'Sign Out' }).click();
    await expect(page).toHaveURL(/\/login$/);
    const signedIn = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/api/auth/login'));
    await login(page, account.email, account.password);
    expect((await signedIn).postDataJSON()).toMatchObject({ timeZone: 'Asia/Tokyo' });
  });
});
