/**
 * Lighthouse accessibility scores for the main screens, plus best practices and Chromium's own
 * installability check on `/`. Slow, so not part of `npm test`:
 *
 *   npm run build && npx tsx scripts/lighthouse-a11y.ts            # starts dist/server on a free port
 *   BASE_URL=http://127.0.0.1:5000 npx tsx scripts/lighthouse-a11y.ts   # or an already running server
 *
 * Signed-in pages are audited with the session cookie of a fresh account (registered through the
 * API) passed as an extra header. Exits 1 if any accessibility score is below 100 or the app is
 * not installable.
 */
import { chromium } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import lighthouse from 'lighthouse';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../e2e/chromium';

const PAGES = ['/', '/gallery', '/organizer', '/pricing', '/settings'];

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

async function startServer(): Promise<{ baseUrl: string; server?: ChildProcess }> {
  if (process.env.BASE_URL) return { baseUrl: process.env.BASE_URL.replace(/\/$/, '') };
  const port = await freePort();
  const server = spawn(process.execPath, ['dist/server/main.js'], {
    stdio: 'inherit',
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'eyevu-lh-')),
      LOG_LEVEL: 'warn',
      DEMO_MODE: 'true',
    },
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 240; i++) {
    if (
      await fetch(`${baseUrl}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { baseUrl, server };
    await new Promise((r) => setTimeout(r, 500));
  }
  server.kill();
  throw new Error('server did not start');
}

async function sessionCookie(baseUrl: string): Promise<string> {
  const res = await fetch(`${baseUrl}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: baseUrl },
    body: JSON.stringify({
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: `ada-${randomBytes(4).toString('hex')}@example.com`,
      password: 'secret123',
    }),
  });
  if (!res.ok) throw new Error(`register failed: ${res.status} ${await res.text()}`);
  return res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
}

const { baseUrl, server } = await startServer();
const debugPort = await freePort();
// A persistent profile: Chromium never offers installation in an incognito-like context.
const browser = await chromium.launchPersistentContext(mkdtempSync(path.join(os.tmpdir(), 'eyevu-lh-profile-')), {
  executablePath: CHROMIUM_PATH,
  args: [...CHROMIUM_ARGS, `--remote-debugging-port=${debugPort}`],
});
let failed: boolean | undefined;
try {
  const cookie = await sessionCookie(baseUrl);
  const rows: { page: string; category: string; score: number; failing: string }[] = [];
  const run = async (url: string, categories: string[], headers?: Record<string, string>) => {
    const result = await lighthouse(
      url,
      { port: debugPort, output: 'json', logLevel: 'error', onlyCategories: categories, extraHeaders: headers },
      { extends: 'lighthouse:default', settings: { formFactor: 'mobile' } },
    );
    if (!result) throw new Error(`no result for ${url}`);
    const { lhr } = result;
    for (const category of categories) {
      const cat = lhr.categories[category]!;
      const failing = cat.auditRefs
        .filter((ref) => ref.weight > 0 && (lhr.audits[ref.id]?.score ?? 1) < 1)
        .map((ref) => ref.id)
        .join(', ');
      rows.push({ page: new URL(url).pathname, category, score: Math.round((cat.score ?? 0) * 100), failing });
      if (process.env.LH_DETAILS) {
        for (const id of failing.split(', ').filter(Boolean)) {
          console.log(id, JSON.stringify(lhr.audits[id]?.details).slice(0, 1500));
        }
      }
    }
  };

  await run(`${baseUrl}/`, ['accessibility', 'best-practices']);
  for (const page of PAGES) await run(`${baseUrl}${page}`, ['accessibility', 'best-practices'], { cookie });

  // Lighthouse 12 dropped its PWA category; ask Chromium itself whether the app is installable.
  const context = browser;
  const page = await context.newPage();
  await page.goto(`${baseUrl}/`);
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
  const cdp = await context.newCDPSession(page);
  const { installabilityErrors } = (await cdp.send('Page.getInstallabilityErrors')) as {
    installabilityErrors: { errorId: string }[];
  };
  const manifest = (await cdp.send('Page.getAppManifest')) as { errors: { message: string }[] };
  await page.close();

  console.log('\nLighthouse (mobile)');
  for (const r of rows) {
    console.log(
      `${r.page.padEnd(12)} ${r.category.padEnd(15)} ${String(r.score).padStart(3)}${r.failing ? `  (${r.failing})` : ''}`,
    );
  }
  const installable = installabilityErrors.length === 0 && manifest.errors.length === 0;
  console.log(
    `installable  ${installable ? 'yes' : 'NO'}${installable ? '' : `  ${JSON.stringify({ installabilityErrors, manifest: manifest.errors })}`}`,
  );
  failed = !installable || rows.some((r) => r.category === 'accessibility' && r.score < 100);
} finally {
  await browser.close();
  server?.kill('SIGTERM');
}
process.exit(failed === false ? 0 : 1);
