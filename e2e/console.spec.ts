import { expect, test, type Page } from '@playwright/test';
import { register } from './helpers';

/**
 * Every screen loads without tripping the Content Security Policy and without a console error: the
 * browser reports both (Lighthouse's best-practices audits read them), and a CSP refusal on a
 * screen is a feature silently not working. Zod's `new Function` probe, run when a screen builds
 * an object schema without `zod-jitless`, is one such refusal; a signed-out visit's auth check
 * answered 401 was one such error.
 */
const SIGNED_OUT = ['/', '/login', '/register', '/forgot-password', '/pricing'];
const SIGNED_IN = ['/', '/gallery', '/organizer', '/pricing', '/settings', '/billing', '/photo-editor'];

async function watch(page: Page) {
  await page.addInitScript(() => {
    localStorage.setItem('eyevu-onboarding-completed', 'true');
    localStorage.setItem('eyevu-onboarding-seen', 'true');
    const seen: string[] = [];
    (window as unknown as { cspViolations: string[] }).cspViolations = seen;
    document.addEventListener('securitypolicyviolation', (e) =>
      seen.push(`${e.violatedDirective} ${e.blockedURI} at ${e.sourceFile}:${e.lineNumber}`),
    );
  });
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`${page.url()}: ${m.text()}`);
  });
  /** Visits a screen, waits for its heading, and returns what it tripped. */
  return async (path: string) => {
    await page.goto(path);
    await expect(page.getByRole('heading').first()).toBeVisible();
    // The screen's chunks and first answers have arrived once the network is quiet.
    await page.waitForLoadState('networkidle');
    const violations = await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations);
    return { violations, errors: errors.splice(0) };
  };
}

test('no screen trips the CSP or logs a console error, signed out or signed in', async ({ page }) => {
  test.setTimeout(180_000);
  const visit = await watch(page);
  for (const path of SIGNED_OUT) {
    expect(await visit(path), `signed out ${path}`).toEqual({ violations: [], errors: [] });
  }
  await register(page);
  for (const path of SIGNED_IN) {
    expect(await visit(path), `signed in ${path}`).toEqual({ violations: [], errors: [] });
  }
});
