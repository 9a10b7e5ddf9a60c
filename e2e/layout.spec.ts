import { expect, test, type Locator, type Page } from '@playwright/test';
import { register } from './helpers';

/**
 * Geometry a phone user sees, which role and text queries cannot: text covered, cut or pushed off the
 * screen, controls that move under a finger, colours too faint to read. Each test was seen failing
 * against the layout it guards.
 */

type Box = { x: number; y: number; width: number; height: number };

const overlaps = (a: Box, b: Box) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** The boxes of an element's text as drawn (not its own box, which overflowing text leaves). */
function textBoxes(target: Locator): Promise<Box[]> {
  return target.evaluate((el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    return [...range.getClientRects()].map((r) => ({ x: r.x, y: r.y, width: r.width, height: r.height }));
  });
}

/** Whether the element's content fits its box: not cut by `truncate`, not spilling out, no inner scroll. */
function fits(target: Locator) {
  return target.evaluate((el) => el.scrollWidth <= el.clientWidth);
}

/**
 * The page's width against the viewport set by the test: a phone (`isMobile`) widens its layout
 * viewport to content that overflows, so `innerWidth` grows with `scrollWidth` and never tells.
 */
async function expectNoHorizontalScroll(page: Page, what: string) {
  const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(scrollWidth, `${what} widened the page`).toBeLessThanOrEqual(page.viewportSize()!.width);
}

/** WCAG contrast ratio of an element's text colour against its own background colour. */
function contrast(target: Locator) {
  return target.evaluate((el) => {
    const style = getComputedStyle(el);
    const channels = (c: string) =>
      c
        .match(/[\d.]+/g)!
        .slice(0, 3)
        .map(Number);
    const luminance = (c: string) => {
      const [r, g, b] = channels(c).map((v) => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const [a, b] = [luminance(style.color), luminance(style.backgroundColor)].sort((x, y) => y - x);
    return (a + 0.05) / (b + 0.05);
  });
}

test.beforeEach(async ({ page }) => {
  await page.addInitScript(() => {
    localStorage.setItem('eyevu-onboarding-completed', 'true');
    localStorage.setItem('eyevu-onboarding-seen', 'true');
  });
});

test('at 320 px the gallery title and the Upgrade to Premium prices are whole', async ({ page }) => {
  await page.setViewportSize({ width: 320, height: 640 });
  await register(page);

  // Select and Upload beside the title left it ~57 px: 'Photo' ran under Select.
  await page.goto('/gallery');
  const title = page.getByRole('heading', { name: 'Photo Gallery', level: 1 });
  await expect(title).toBeVisible();
  const select = page.getByRole('button', { name: 'Select', exact: true });
  await expect(select).toBeVisible();
  expect(await fits(title)).toBe(true);
  for (const button of [select, page.getByRole('button', { name: 'Upload', exact: true })]) {
    const box = (await button.boundingBox())!;
    for (const line of await textBoxes(title)) expect(overlaps(line, box), 'title under a button').toBe(false);
  }

  // The monthly card's price ('$4.99/month', which cannot break) and check ran out of the card.
  // The prompt opens from the plan the app has read (a press before that starts the ad).
  const plan = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/subscription');
  await page.goto('/');
  await plan;
  await page.getByRole('button', { name: 'YouTube (30s)' }).click();
  const dialog = page.getByRole('dialog', { name: 'Upgrade to Premium' });
  await expect(dialog).toBeVisible();
  for (const plan of await dialog.getByRole('radio').all()) {
    expect(await fits(plan), (await plan.textContent()) ?? '').toBe(true);
  }
  expect(await fits(dialog)).toBe(true);
});

test('the viewer shows the photo name whole beside its actions at 360 px', async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 740 });
  await register(page);
  await page.goto('/gallery');
  await page.getByRole('button', { name: 'Open Astronaut Portrait' }).click();
  const caption = page.getByTestId('viewer-caption');
  const name = caption.getByText('Astronaut Portrait', { exact: true });
  await expect(name).toBeVisible();
  // Beside Edit, Share, Favorite and Info it had ~100 px and read 'Astronau...'.
  expect(await fits(name)).toBe(true);
  const info = (await caption.getByRole('button', { name: 'Info' }).boundingBox())!;
  for (const line of await textBoxes(name)) expect(overlaps(line, info)).toBe(false);
});

test('organizer: a tap selects without moving the photos, and a long album name keeps the page narrow', async ({
  page,
}) => {
  await page.setViewportSize({ width: 360, height: 740 });
  await register(page);
  const photos = (await (await page.request.get('/api/photos')).json()) as { id: string }[];
  const name = 'Holiday'.repeat(14); // 98 characters, one word: nothing to wrap at
  const made = await page.request.post('/api/albums', {
    data: { name, description: 'Album with 1 photos', photoIds: [photos[0]!.id] },
  });
  expect(made.ok()).toBe(true);

  await page.goto('/organizer');
  const coffee = page.getByRole('button', { name: 'Select Coffee Cup' });
  const fig = page.getByRole('button', { name: 'Select Fig in a Red Bowl' });
  await expect(coffee).toBeVisible();
  const before = (await fig.boundingBox())!;
  await coffee.tap();
  await expect(page.getByText('1 photos selected')).toBeVisible();
  // The album form appeared above the grid and pushed it down ~150 px: the next tap at the same
  // place selected another photo.
  expect(await fig.boundingBox()).toEqual(before);
  await fig.tap();
  await expect(page.getByText('2 photos selected')).toBeVisible();
  await expect(fig).toHaveAttribute('aria-pressed', 'true');

  // The form stays in sight, clear of the bottom navigation; the last photo reached by Tab is not
  // under it.
  const form = (await page.getByRole('region', { name: 'New album' }).boundingBox())!;
  const nav = (await page.getByRole('navigation', { name: 'Main' }).boundingBox())!;
  expect(overlaps(form, nav)).toBe(false);
  expect(form.y).toBeGreaterThan(0);
  const last = page.getByRole('list', { name: 'Photos' }).getByRole('button').last();
  await last.focus();
  const lastBox = (await last.boundingBox())!;
  expect(lastBox.y + lastBox.height).toBeLessThanOrEqual(form.y);

  await page.getByRole('tab', { name: 'Albums' }).click();
  await expect(page.getByRole('heading', { name })).toBeVisible();
  await expectNoHorizontalScroll(page, 'the album name');

  // Browser text set to Large (20 px, 125%): the three tabs no longer fit beside each other.
  await page.addStyleTag({ content: 'html { font-size: 125% }' });
  await expect(page.getByRole('tab', { name: 'Categories' })).toBeVisible();
  await expectNoHorizontalScroll(page, 'the organizer tabs at 125% text');
});

test('with large text the status bar keeps the Active badge and the theme picker on screen', async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 740 });
  await register(page);
  expect((await page.request.post('/api/app-status/activate')).ok()).toBe(true);
  await page.goto('/');
  const bar = page.getByRole('banner');
  await expect(bar.getByText('Active', { exact: true })).toBeVisible();
  // Browser text set to Large (125%): the bar was 384 px wide and every screen scrolled sideways.
  await page.addStyleTag({ content: 'html { font-size: 125% }' });
  // 320 px is WCAG's reflow width: there the badge and the picker (about 167 px) did not fit the
  // room the clock and the name leave (about 135 px), and the picker sat past the screen's edge.
  for (const width of [360, 320]) {
    await page.setViewportSize({ width, height: 740 });
    await expectNoHorizontalScroll(page, `the status bar at 125% text, ${width} px`);
    for (const part of [bar.getByText('Active', { exact: true }), bar.getByLabel('Theme'), bar.getByText('Eyevu')]) {
      const box = (await part.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width, `${await part.textContent()} at ${width} px`).toBeLessThanOrEqual(width);
    }
  }
});

test('the product name stays put when the app takes over from the server-painted first screen', async ({
  page,
  browser,
}) => {
  await page.setViewportSize({ width: 360, height: 740 });
  await register(page);
  // What the server painted, as a browser shows it before the script runs.
  const painted = await browser.newContext({
    viewport: { width: 360, height: 740 },
    javaScriptEnabled: false,
    storageState: await page.context().storageState(),
  });
  const first = await painted.newPage();
  for (const path of ['/', '/gallery']) {
    await first.goto(path);
    const before = (await first.getByRole('banner').getByText('Eyevu', { exact: true }).boundingBox())!;
    await page.goto(path);
    await expect(page.getByTestId('clock')).toBeVisible();
    const after = (await page.getByRole('banner').getByText('Eyevu', { exact: true }).boundingBox())!;
    // The painted bar's right side was narrower than the app's: the name jumped ~36 px left.
    expect(Math.abs(after.x - before.x), path).toBeLessThan(1);
  }
  await painted.close();
});

test('dark theme: text on the danger and success colours is readable, and plan badges stay on one line', async ({
  page,
}) => {
  await page.addInitScript(() => localStorage.setItem('eyevu-theme', 'dark'));
  await page.setViewportSize({ width: 320, height: 640 });
  await register(page);

  await page.goto('/gallery');
  await page.getByRole('button', { name: 'Select', exact: true }).click();
  await page.getByRole('button', { name: 'Select Coffee Cup' }).click();
  const del = page.getByRole('toolbar', { name: 'Selection' }).getByRole('button', { name: 'Delete' });
  // White on dark mode's light red read at 2.8:1.
  expect(await contrast(del)).toBeGreaterThanOrEqual(4.5);
  await del.click();
  const confirm = page.getByRole('alertdialog').getByRole('button', { name: 'Delete' });
  await expect(confirm).toBeVisible();
  expect(await contrast(confirm)).toBeGreaterThanOrEqual(4.5);
  await page.keyboard.press('Escape');

  const endDate = new Date(Date.now() + 7 * 86_400_000).toISOString();
  const trial = await page.request.post('/api/subscription', {
    data: { plan: 'monthly', status: 'active', endDate, price: 499 },
  });
  expect(trial.ok()).toBe(true);
  await page.goto('/billing');
  const active = page.getByText('Active', { exact: true });
  await expect(active).toBeVisible();
  // White on dark mode's light green read at 1.8:1.
  expect(await contrast(active)).toBeGreaterThanOrEqual(4.5);
  // At 320 px 'Free trial' broke inside its pill.
  const badge = page.getByText('Free trial', { exact: true });
  expect(await textBoxes(badge)).toHaveLength(1);
});

/** WCAG contrast of a colour (its alpha laid over the backdrop) against that backdrop. */
function contrastOver(colour: string, backdrop: [number, number, number]) {
  const [r, g, b, a = 1] = colour.match(/[\d.]+/g)!.map(Number);
  const laid = [r!, g!, b!].map((c, i) => c * a + backdrop[i]! * (1 - a));
  const luminance = (rgb: number[]) => {
    const [lr, lg, lb] = rgb.map((v) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * lr! + 0.7152 * lg! + 0.0722 * lb!;
  };
  const [hi, lo] = [luminance(laid), luminance(backdrop)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

test('with a home indicator the selection bar clears the bottom navigation, and its circles read on any photo', async ({
  page,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  // An iPhone's insets (Chromium emulates env(safe-area-inset-*) for this page).
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setSafeAreaInsetsOverride' as never, { insets: { top: 47, bottom: 34 } } as never);
  await register(page);
  await page.goto('/gallery');
  await page.getByRole('button', { name: 'Select', exact: true }).click();
  await page.getByRole('button', { name: 'Select Coffee Cup' }).click();
  const bar = (await page.getByRole('toolbar', { name: 'Selection' }).boundingBox())!;
  const nav = (await page.getByRole('navigation', { name: 'Main' }).boundingBox())!;
  // At 80 px from the bottom it met the navigation, which the inset makes 34 px taller.
  expect(bar.y + bar.height).toBeLessThanOrEqual(nav.y);

  // A white ring alone was lost on a white photo: some edge of the circle reaches 3:1 (WCAG 1.4.11)
  // against white and against black.
  const circle = await page
    .getByTestId('select-circle')
    .first()
    .evaluate((el) => {
      const style = getComputedStyle(el);
      return [style.borderTopColor, ...(style.boxShadow.match(/rgba?\([^)]*\)/g) ?? [])];
    });
  for (const backdrop of [
    [255, 255, 255],
    [0, 0, 0],
  ] as [number, number, number][]) {
    expect(Math.max(...circle.map((c) => contrastOver(c, backdrop)))).toBeGreaterThanOrEqual(3);
  }
});

test.describe('settings: the plan link', () => {
  // The plan read is held and failed by page.route, which a service worker would pass by.
  test.use({ serviceWorkers: 'block' });

  /** Where Sign Out, just below the plan's slot, sits on the page. */
  const signOutTop = (page: Page) =>
    page
      .getByRole('button', { name: 'Sign Out' })
      .evaluate((el) => Math.round(el.getBoundingClientRect().top + window.scrollY));

  for (const width of [360, 320]) {
    test(`keeps its place while the plan loads and when it cannot be read, at ${width} px`, async ({ page }) => {
      await page.setViewportSize({ width, height: 740 });
      await register(page);
      const plan = /\/api\/subscription$/;
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      await page.route(plan, async (route) => {
        await released;
        await route.continue();
      });
      await page.goto('/settings');
      await expect(page.getByRole('button', { name: 'Sign Out' })).toBeVisible();
      // The activity history above it has its own read: measured once it has come.
      await expect(page.getByText('Loading activities...')).toHaveCount(0);
      const loading = await signOutTop(page);
      release();
      await expect(page.getByRole('link', { name: 'Upgrade Plan' })).toBeVisible();
      // The empty slot added one gap while loading, and the link moved Sign Out 44 px on its answer.
      expect(await signOutTop(page)).toBe(loading);

      await page.unroute(plan);
      await page.route(plan, (route) => route.abort('internetdisconnected'));
      await page.reload();
      await expect(page.getByRole('alert').filter({ hasText: 'Network error. Please try again.' })).toBeVisible();
      await expect(page.getByRole('button', { name: 'Try again' })).toBeVisible();
      await expect(page.getByText('Loading activities...')).toHaveCount(0);
      expect(await signOutTop(page)).toBe(loading);
    });
  }
});
