/**
 * (tool, no target) What a phone on a slow link sees of a page's first load, for this build and
 * another checkout's build, taking turns: Chromium with DevTools' own throttling (Lighthouse's
 * "devtools" slow-4G figures: 562.5 ms per request, 1.47 Mbit/s down, 675 kbit/s up; CPU 4x
 * slower), a fresh context per load (cold cache, no service worker), signed in. Per page and build,
 * the median of RUNS loads of:
 *   - FCP: the first contentful paint;
 *   - LCP: the last largest-contentful-paint candidate before the app's screen came up;
 *   - images: the last of the painted first screen's images in (its linked thumbnails' responseEnd;
 *     pictures inside the page count as the first paint);
 *   - app: the moment the app's own screen replaced the server's painted first screen
 *     (`#first-paint` gone from the document), i.e. the page answers taps from then on;
 * Lantern's simulation (Lighthouse's score) does not say when the app starts on a real link: this
 * does, with real requests over a throttled connection.
 *
 *   npx tsx bench/boot-phone.ts <other root> [runs=5]   (both builds built beforehand)
 *
 * PAGES=/,/pricing limits the paths; NET=off leaves the link unthrottled (the CPU still 4x slower).
 */
import { chromium, type Browser } from 'playwright';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../e2e/chromium';
import { register, waitAnalysisIdle } from './lib/http.js';
import { removeDir, ROOT, startServer, type RunningServer } from './lib/server.js';

const OTHER = process.argv[2];
const RUNS = Number(process.argv[3] ?? 5);
const PAGES = process.env.PAGES?.split(',') ?? ['/', '/gallery', '/pricing'];
if (!OTHER) {
  console.error('usage: npx tsx bench/boot-phone.ts <other root> [runs]');
  process.exit(2);
}

interface Load {
  fcp: number;
  lcp: number;
  images: number;
  app: number;
}

async function load(browser: Browser, server: RunningServer, cookie: string, page: string): Promise<Load> {
  const context = await browser.newContext({ viewport: { width: 412, height: 823 }, serviceWorkers: 'block' });
  const [name, value] = cookie.split(';')[0].split('=');
  await context.addCookies([{ name, value, url: server.url }]);
  await context.addInitScript(() => {
    const w = window as unknown as { __appAt?: number; __lcp?: number; __painted?: string[] };
    document.addEventListener('DOMContentLoaded', () => {
      // Pictures inside the page (data: URLs) came with it: only linked ones are waited for.
      w.__painted = [...document.querySelectorAll<HTMLImageElement>('#first-paint img')]
        .map((i) => i.src)
        .filter((src) => !src.startsWith('data:'));
    });
    new PerformanceObserver((list) => {
      if (w.__appAt !== undefined) return;
      for (const e of list.getEntries()) w.__lcp = e.startTime;
    }).observe({ type: 'largest-contentful-paint', buffered: true });
    new MutationObserver(() => {
      if (w.__appAt === undefined && document.readyState !== 'loading' && !document.getElementById('first-paint')) {
        w.__appAt = performance.now();
      }
    }).observe(document, { childList: true, subtree: true });
  });
  const tab = await context.newPage();
  const cdp = await context.newCDPSession(tab);
  await cdp.send('Network.enable');
  if (process.env.NET !== 'off')
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 562.5,
      downloadThroughput: (1474.56 * 1024) / 8,
      uploadThroughput: (675 * 1024) / 8,
    });
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  await tab.goto(server.url + page, { waitUntil: 'load' });
  await tab.waitForFunction(() => (window as unknown as { __appAt?: number }).__appAt !== undefined, null, {
    timeout: 60_000,
    polling: 50,
  });
  const result = await tab.evaluate(() => ({
    fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
    lcp: (window as unknown as { __lcp?: number }).__lcp ?? NaN,
    images: Math.max(
      performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
      ...((window as unknown as { __painted?: string[] }).__painted ?? []).map(
        (src) => (performance.getEntriesByName(src)[0] as PerformanceResourceTiming | undefined)?.responseEnd ?? NaN,
      ),
    ),
    app: (window as unknown as { __appAt: number }).__appAt,
  }));
  await context.close();
  return result;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const roots = [ROOT, OTHER];
  const servers: RunningServer[] = [];
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    for (const root of roots) servers.push(await startServer({ root }));
    const cookies: string[] = [];
    for (const s of servers) {
      const session = await register(s.url, 'phone');
      await waitAnalysisIdle(session, 300_000);
      cookies.push(session.cookie);
    }
    for (const page of PAGES) {
      const loads: Load[][] = roots.map(() => []);
      for (let i = 0; i < RUNS; i++) {
        // A B B A ...: neither build always goes first.
        const order = i % 2 === 0 ? [0, 1] : [1, 0];
        for (const k of order) loads[k].push(await load(browser, servers[k], cookies[k], page));
      }
      roots.forEach((root, k) => {
        const fcp = loads[k].map((l) => Math.round(l.fcp));
        const lcp = loads[k].map((l) => Math.round(l.lcp));
        const images = loads[k].map((l) => Math.round(l.images));
        const app = loads[k].map((l) => Math.round(l.app));
        console.log(
          `${page.padEnd(9)} ${root.padEnd(20)} FCP ${median(fcp)} ms (${fcp.join(' ')})  LCP ${median(lcp)} ms (${lcp.join(' ')})  images ${median(images)} ms (${images.join(' ')})  app ${median(app)} ms (${app.join(' ')})`,
        );
      });
    }
  } finally {
    await browser.close();
    for (const s of servers) {
      await s.stop();
      removeDir(s.dataDir);
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
