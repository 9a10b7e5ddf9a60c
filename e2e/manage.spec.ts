import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import sharp from 'sharp';
import { register } from './helpers';

/** A JPEG as a camera writes it: make, model, lens, exposure, date and the place it was taken. */
/** EXIF's 'YYYY:MM:DD hh:mm:ss' (this machine's clock, which the test server shares). */
const exifDate = (d: Date) => d.toISOString().slice(0, 19).replace('T', ' ').replace(/-/g, ':');

// Taken just now, so the timeline (newest taken first) shows it at the top of the gallery.
const cameraJpeg = (taken = new Date()) =>
  sharp({ create: { width: 120, height: 80, channels: 3, background: '#357' } })
    .jpeg()
    .withExif({
      IFD0: { Make: 'Canon', Model: 'Canon EOS R6' },
      IFD2: {
        DateTimeOriginal: exifDate(taken),
        ExposureTime: '1/250',
        FNumber: '28/10',
        ISOSpeedRatings: '200',
        FocalLength: '50/1',
        LensModel: 'RF50mm F1.8 STM',
      },
      IFD3: {
        GPSLatitudeRef: 'N',
        GPSLatitude: '48/1 51/1 2964/100',
        GPSLongitudeRef: 'E',
        GPSLongitude: '2/1 17/1 4020/100',
      },
    })
    .toBuffer();

// Each test registers a new account (its demo library is prepared on the server) and walks several screens.
test.setTimeout(180_000);

test.beforeEach(async ({ page }) => {
  // The onboarding tutorial is not under test here: mark it seen so it does not cover the gallery.
  await page.addInitScript(() => {
    localStorage.setItem('eyevu-onboarding-completed', 'true');
    localStorage.setItem('eyevu-onboarding-seen', 'true');
  });
});

/** No serious or critical WCAG 2.2 AA violation (axe) on the page as it is now. */
async function expectAccessible(page: Page, label: string) {
  const { violations } = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'])
    .analyze();
  const serious = violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ rule: v.id, nodes: v.nodes.slice(0, 4).map((n) => n.target.join(' ')) }));
  expect(serious, `${label}: ${JSON.stringify(serious, null, 2)}`).toEqual([]);
}

async function openGallery(page: Page) {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Gallery', exact: true }).click();
  await expect(page.getByText('10 photos available')).toBeVisible();
}

test('Select, pick three photos, confirm "Delete 3 photos?": they leave the gallery and the dashboard at once', async ({
  page,
}) => {
  await register(page);
  await openGallery(page);

  await page.getByRole('button', { name: 'Select', exact: true }).click();
  for (const name of ['Astronaut Portrait', 'Coffee Cup', 'Wavy Building Facade']) {
    const tile = page.getByRole('button', { name: `Select ${name}` });
    await tile.scrollIntoViewIfNeeded();
    await tile.click();
    await expect(tile).toHaveAttribute('aria-pressed', 'true');
  }
  const bar = page.getByRole('toolbar', { name: 'Selection' });
  await expect(bar).toContainText('3 selected');
  await expectAccessible(page, 'gallery while selecting');
  // A second tap on a selected photo takes it out again.
  await page.getByRole('button', { name: 'Select Coffee Cup' }).click();
  await expect(bar).toContainText('2 selected');
  await page.getByRole('button', { name: 'Select Coffee Cup' }).click();
  await expect(bar).toContainText('3 selected');

  // Cancel in the confirmation keeps everything.
  await bar.getByRole('button', { name: 'Delete' }).click();
  const confirm = page.getByRole('alertdialog', { name: 'Delete 3 photos?' });
  await expect(confirm).toBeVisible();
  await expectAccessible(page, 'delete confirmation');
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(confirm).toHaveCount(0);
  await expect(page.getByText('10 photos available')).toBeVisible();

  await bar.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('alertdialog', { name: 'Delete 3 photos?' }).getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByText('3 photos deleted')).toBeVisible();
  await expect(page.getByText('7 photos available')).toBeVisible();
  await expect(bar).toHaveCount(0);
  for (const name of ['Astronaut Portrait', 'Coffee Cup', 'Wavy Building Facade'])
    await expect(page.getByRole('button', { name: `Open ${name}` })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Open Spaniels at the Window' })).toBeVisible();

  // The dashboard counts the library again without a reload.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Home', exact: true }).click();
  await expect(page.getByText(/Member for \d+ days • 7 photos/)).toBeVisible();
  await expect(page.getByText(/7 total photos • \d+ analyzed/)).toBeVisible();

  // And the server agrees after a reload.
  await page.goto('/gallery');
  await expect(page.getByText('7 photos available')).toBeVisible();
});

test('a long press on a touch screen starts selecting with that photo', async ({ page }) => {
  await register(page);
  await openGallery(page);
  const tile = page.getByRole('button', { name: 'Open Coffee Cup' });
  await tile.scrollIntoViewIfNeeded();
  const box = (await tile.boundingBox())!;
  const x = box.x + box.width / 2;
  const y = box.y + box.height / 3;
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x, y }] });
  await page.waitForTimeout(800);
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });

  await expect(page.getByRole('button', { name: 'Select Coffee Cup' })).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByRole('toolbar', { name: 'Selection' })).toContainText('1 selected');
  // The viewer did not open: the press selected the photo instead.
  await expect(page.getByRole('dialog', { name: 'Your Photos' })).toHaveCount(0);

  // A short tap while selecting adds a photo.
  await page.getByRole('button', { name: 'Select Astronaut Portrait' }).tap();
  await expect(page.getByRole('toolbar', { name: 'Selection' })).toContainText('2 selected');
  await page.getByRole('button', { name: 'Cancel selection' }).click();
  await expect(page.getByRole('button', { name: 'Open Coffee Cup' })).toBeVisible();
});

test('the viewer: Info shows the EXIF, Download saves the original under its name, Favorite persists into the Favorites album, Delete removes the photo', async ({
  page,
}) => {
  await register(page);
  await openGallery(page);
  const bytes = await cameraJpeg();
  await page
    .getByLabel('Choose photos to upload')
    .setInputFiles({ name: 'IMG_0042.JPG', mimeType: 'image/jpeg', buffer: bytes });
  await expect(page.getByText('11 photos available')).toBeVisible();

  await page.getByRole('button', { name: 'Open IMG_0042' }).click();
  const viewer = page.getByRole('dialog', { name: 'Your Photos' });
  await expect(viewer.getByTestId('viewer-caption')).toContainText('IMG_0042');

  // Info: a dialog with what the camera wrote.
  await viewer.getByRole('button', { name: 'Info' }).click();
  const info = page.getByRole('dialog', { name: 'Photo info' });
  const details = info.getByTestId('photo-info');
  await expect(details).toContainText('Canon EOS R6');
  await expect(details).toContainText('RF50mm F1.8 STM');
  await expect(details).toContainText('1/250 s · f/2.8 · ISO 200 · 50 mm');
  await expect(details).toContainText('120 × 80');
  await expect(details).toContainText('48.85823° N, 2.29450° E');
  await expect(details).toContainText(String(new Date().getFullYear()));
  await expect(details).toContainText('IMG_0042.JPG');
  await expect(info.getByText('Date taken')).toBeVisible();
  await expectAccessible(page, 'photo info');
  await info.getByRole('button', { name: 'Close info' }).click();
  await expect(info).toHaveCount(0);
  await expect(viewer).toBeVisible();

  // Download: the original's bytes under the uploaded file name.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    viewer.getByRole('link', { name: 'Download' }).click(),
  ]);
  expect(download.suggestedFilename()).toBe('IMG_0042.JPG');
  const saved = await download.createReadStream();
  const chunks: Buffer[] = [];
  for await (const c of saved) chunks.push(c as Buffer);
  expect(Buffer.compare(Buffer.concat(chunks), bytes)).toBe(0);

  // Favorite toggles and survives a reload.
  const heart = viewer.getByRole('button', { name: 'Favorite' });
  await expect(heart).toHaveAttribute('aria-pressed', 'false');
  await heart.click();
  await expect(heart).toHaveAttribute('aria-pressed', 'true');
  await page.keyboard.press('Escape');
  await page.reload();
  await page.getByRole('button', { name: 'Open IMG_0042' }).click();
  await expect(viewer.getByRole('button', { name: 'Favorite' })).toHaveAttribute('aria-pressed', 'true');
  await page.keyboard.press('Escape');

  // The Favorites album: in the gallery and in the organizer's albums.
  await page.getByRole('group', { name: 'Show' }).getByRole('button', { name: 'Favorites' }).click();
  await expect(page.getByTestId('photo-tile')).toHaveCount(1);
  await expect(page.getByRole('button', { name: 'Open IMG_0042' })).toBeVisible();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Organize', exact: true }).click();
  await page.getByRole('tab', { name: 'Albums' }).click();
  const albums = page.getByRole('list', { name: 'Albums' });
  await expect(albums).toContainText('Smart album with 1 photo');
  await albums.getByRole('link', { name: 'Favorites' }).click();
  await expect(page).toHaveURL(/\/gallery\?view=favorites$/);
  await expect(page.getByRole('button', { name: 'Open IMG_0042' })).toBeVisible();

  // Unfavorite from the Favorites view: the album empties.
  await page.getByRole('button', { name: 'Open IMG_0042' }).click();
  await viewer.getByRole('button', { name: 'Favorite' }).click();
  await expect(page.getByText('No favorites yet')).toBeVisible();
  await page.keyboard.press('Escape');

  // Delete from the viewer, after its own confirmation; the next photo takes its place.
  await page.getByRole('group', { name: 'Show' }).getByRole('button', { name: 'All Photos' }).click();
  await expect(page.getByText('11 photos available')).toBeVisible();
  await page.getByRole('button', { name: 'Open IMG_0042' }).click();
  await viewer.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('alertdialog', { name: 'Delete 1 photo?' }).getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByText('Photo deleted')).toBeVisible();
  await expect(viewer.getByTestId('viewer-caption')).not.toContainText('IMG_0042');
  await page.keyboard.press('Escape');
  await expect(page.getByText('10 photos available')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Open IMG_0042' })).toHaveCount(0);
});

test('Share sends the photo as a file through the Web Share API where the browser has it', async ({ page }) => {
  // A browser with file sharing (as on a phone): the share sheet receives the photo as a file.
  await page.addInitScript(() => {
    const w = window as unknown as { shared: Array<{ name: string; type: string; size: number; title?: string }> };
    w.shared = [];
    Object.defineProperty(Navigator.prototype, 'canShare', {
      configurable: true,
      value: (data: { files?: File[] }) => !!data.files?.every((f) => f.type.startsWith('image/')),
    });
    Object.defineProperty(Navigator.prototype, 'share', {
      configurable: true,
      value: async (data: { files: File[]; title?: string }) => {
        for (const f of data.files) w.shared.push({ name: f.name, type: f.type, size: f.size, title: data.title });
      },
    });
  });
  await register(page);
  await openGallery(page);
  await page.getByRole('button', { name: 'Open Coffee Cup' }).click();
  const viewer = page.getByRole('dialog', { name: 'Your Photos' });
  await viewer.getByRole('button', { name: 'Share' }).click();
  // The photo is fetched before the share sheet opens: slow on a busy machine.
  await expect
    .poll(() => page.evaluate(() => (window as unknown as { shared: unknown[] }).shared), { timeout: 30_000 })
    .toEqual([
      {
        name: expect.stringMatching(/^Coffee Cup\.(jpg|png|webp)$/),
        type: expect.stringMatching(/^image\//),
        size: expect.any(Number),
        title: 'Coffee Cup',
      },
    ]);
  const [shared] = await page.evaluate(() => (window as unknown as { shared: Array<{ size: number }> }).shared);
  expect(shared!.size).toBeGreaterThan(1000);
  await expect(page.getByText('Sharing is not available')).toHaveCount(0);
});

test('Share says it is not available in a browser without the Web Share API, and copies nothing', async ({ page }) => {
  await page.addInitScript(() => {
    delete (Navigator.prototype as unknown as Record<string, unknown>).share;
    delete (Navigator.prototype as unknown as Record<string, unknown>).canShare;
  });
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await register(page);
  await openGallery(page);
  await page.evaluate(() => navigator.clipboard.writeText('before'));
  await page.getByRole('button', { name: 'Open Coffee Cup' }).click();
  await page.getByRole('dialog', { name: 'Your Photos' }).getByRole('button', { name: 'Share' }).click();
  await expect(page.getByText('Sharing is not available')).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('before');
});
