/** Debian Chromium through Playwright, signed in with a session cookie; mobile like the e2e tests. */
import { chromium, devices, type Browser, type BrowserContext } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../e2e/chromium';
import type { Session } from './http.js';

export function launch(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS, ...extraArgs] });
}

/** A mobile context (Pixel 7) carrying the session cookie, with onboarding already seen. */
export async function signedInContext(browser: Browser, s: Session): Promise<BrowserContext> {
  const context = await browser.newContext({ ...devices['Pixel 7'] });
  const url = new URL(s.url);
  await context.addCookies(
    s.cookie.split('; ').map((pair) => {
      const i = pair.indexOf('=');
      return { name: pair.slice(0, i), value: pair.slice(i + 1), domain: url.hostname, path: '/' };
    }),
  );
  await context.addInitScript(() => {
    localStorage.setItem('eyevu-onboarding-completed', 'true');
    localStorage.setItem('eyevu-onboarding-seen', 'true');
  });
  return context;
}
