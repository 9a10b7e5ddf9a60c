import { expect, test, type Page } from '@playwright/test';
import { register } from './helpers';

const planCard = (page: Page, name: string) => page.getByRole('region', { name, exact: true });

test('pricing: monthly/yearly toggle, savings figures, most popular and current plan', async ({ page }) => {
  await register(page);
  await page.goto('/pricing');
  await expect(page.getByRole('heading', { name: 'Choose Your Plan' })).toBeVisible();

  await expect(planCard(page, 'Basic').getByText('$4.99/month')).toBeVisible();
  await expect(planCard(page, 'Premium').getByText('$9.99/month')).toBeVisible();
  await expect(planCard(page, 'Ultimate').getByText('$19.99/month')).toBeVisible();
  await expect(page.getByText('Save 20%')).toHaveCount(0);
  await expect(planCard(page, 'Premium').getByText('Most Popular')).toBeVisible();
  // A free account: the free card is the current plan, disabled.
  await expect(planCard(page, 'Free').getByRole('button', { name: 'Current Plan' })).toBeDisabled();
  await expect(planCard(page, 'Basic').getByRole('button', { name: 'Upgrade to Basic' })).toBeEnabled();

  await page.getByRole('button', { name: 'Yearly' }).click();
  await expect(page.getByRole('button', { name: 'Yearly' })).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByText('Save 20%')).toBeVisible();
  await expect(planCard(page, 'Basic').getByText('$47.90/year')).toBeVisible();
  await expect(planCard(page, 'Basic').getByText('Save $11.98 annually')).toBeVisible();
  await expect(planCard(page, 'Premium').getByText('$95.90/year')).toBeVisible();
  await expect(planCard(page, 'Premium').getByText('Save $23.98 annually')).toBeVisible();
  await expect(planCard(page, 'Ultimate').getByText('Save $47.98 annually')).toBeVisible();
  await expect(planCard(page, 'Free').getByText(/annually/)).toHaveCount(0);

  await page.getByRole('button', { name: 'Monthly' }).click();
  await expect(page.getByText('Save 20%')).toHaveCount(0);
  await expect(page.getByText('Save $11.98 annually')).toHaveCount(0);

  // The upgrade button checks the price on the server and goes to checkout, which without Stripe
  // configuration shows 'Payment System Unavailable' instead of a form that cannot pay.
  await planCard(page, 'Premium').getByRole('button', { name: 'Upgrade to Premium' }).click();
  await expect(page).toHaveURL(/\/checkout\?tier=premium&billing=monthly$/);
  await expect(page.getByRole('heading', { name: 'Payment System Unavailable' })).toBeVisible();
});

test('free trial from the upgrade modal gives 7 days of Premium; cancel returns the account to free', async ({
  page,
}) => {
  await register(page);
  await page.goto('/billing');
  await expect(page.getByRole('heading', { name: 'Billing & Subscription' })).toBeVisible();
  const plan = page.getByRole('region', { name: 'Current Plan' });
  await expect(plan.getByText('Free', { exact: true })).toBeVisible();
  await expect(plan.getByRole('link', { name: 'View Pricing Plans' })).toBeVisible();
  await expect(page.getByText('No billing history available')).toBeVisible();

  await plan.getByRole('button', { name: 'Start Free Trial' }).click();
  const modal = page.getByRole('dialog', { name: 'Upgrade to Premium' });
  await expect(modal).toBeVisible();
  await expect(modal.getByText('Browse your photos instead of watching ads')).toBeVisible();
  await expect(modal.getByRole('radio', { name: /monthly/i })).toHaveAttribute('aria-checked', 'true');
  await expect(modal.getByText('$49.99/year')).toBeVisible();
  await expect(modal.getByText('7-day free trial • Cancel anytime')).toBeVisible();
  const trialEnd = await page.evaluate(() =>
    new Date(Date.now() + 7 * 86_400_000).toLocaleDateString(undefined, {
      year: 'numeric',
      month: 'short',
      day: 'numeric',
    }),
  );
  await expect(modal.getByText(`Your free trial would end on ${trialEnd}.`, { exact: false })).toBeVisible();
  await modal.getByRole('button', { name: 'Start Free Trial' }).click();

  await expect(page.getByText('Subscription activated!')).toBeVisible();
  await expect(modal).toBeHidden();
  await expect(plan.getByText('Active', { exact: true })).toBeVisible();
  await expect(plan.getByText('Free trial', { exact: true })).toBeVisible();
  await expect(plan.getByText('Premium', { exact: true })).toBeVisible();
  // The price is what checkout charges to keep Premium; the trial itself is free and ends in 7 days.
  await expect(plan.getByText('$9.99/month after the trial')).toBeVisible();
  await expect(plan.getByText('Next Billing').locator('xpath=following-sibling::dd')).toHaveText(trialEnd);
  await expect(plan.getByText(`Your free trial ends on ${trialEnd}.`, { exact: false })).toBeVisible();
  await expect(plan.getByRole('link', { name: 'Subscribe to Premium' })).toHaveAttribute(
    'href',
    '/checkout?tier=premium&billing=monthly',
  );
  await expect(
    page.getByRole('listitem').filter({ hasText: 'Ad overlay gallery' }).getByLabel('Included'),
  ).toBeVisible();

  // Pricing shows the trial's end on Premium and still sells it: the trial continues only by checkout.
  await page.goto('/pricing');
  await expect(planCard(page, 'Premium').getByText(`Free trial ends ${trialEnd}.`, { exact: false })).toBeVisible();
  await expect(planCard(page, 'Premium').getByRole('button', { name: 'Upgrade to Premium' })).toBeEnabled();

  await page.goto('/billing');
  await plan.getByRole('button', { name: 'Cancel Subscription' }).click();
  const confirm = page.getByRole('dialog', { name: 'Cancel subscription?' });
  await expect(confirm).toBeVisible();
  await confirm.getByRole('button', { name: 'Yes, cancel' }).click();
  await expect(confirm).toBeHidden();
  await expect(plan.getByText('Free', { exact: true })).toBeVisible();
  await expect(plan.getByRole('link', { name: 'View Pricing Plans' })).toBeVisible();
  // The free trial is offered once per account.
  await expect(plan.getByRole('button', { name: 'Start Free Trial' })).toHaveCount(0);
  await page.reload();
  await expect(plan.getByText('Free', { exact: true })).toBeVisible();
});

test('checkout: without Stripe configuration shows Payment System Unavailable; without params returns to pricing', async ({
  page,
}) => {
  await register(page);
  await page.goto('/checkout?tier=ultimate&billing=yearly');
  await expect(page.getByRole('heading', { name: 'Payment System Unavailable' })).toBeVisible();
  await page.getByRole('link', { name: 'Back to Pricing' }).click();
  await expect(page).toHaveURL(/\/pricing$/);

  await page.goto('/checkout');
  await expect(page).toHaveURL(/\/pricing$/);
  await expect(page.getByRole('heading', { name: 'Choose Your Plan' })).toBeVisible();

  await page.goto('/checkout?tier=premium');
  await expect(page).toHaveURL(/\/pricing$/);
});
