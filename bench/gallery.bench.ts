/**
 * P4 gallery at scale: time to the first gallery page (navigation to the first photo tile in the
 * DOM) and, after scrolling to the end, the most photo tiles ever in the DOM and whether the last
 * (oldest) photo was reached, for a 100,000-photo library against a 100-photo one on the same
 * server (Playwright, Debian Chromium, Pixel 7 emulation).
 * Targets: time ratio <= 1.2; <= 100 tiles in the DOM; last photo reached.
 *
 *   npx tsx bench/gallery.bench.ts [runs=5]
 */
import type { Browser } from '@playwright/test';
import { launch, signedInContext } from './lib/browser.js';
import type { Session } from './lib/http.js';
import { runStandalone, type Libraries } from './lib/libraries.js';
import { fmtRatio, isMain, median, ms, type Row } from './lib/report.js';

const TARGET_RATIO = 1.2;
const TARGET_TILES = 100;
/** Scrolling to the end of 100,000 photos pages through the whole library; give up after this. */
const SCROLL_LIMIT_MS = Number(process.env.BENCH_SCROLL_LIMIT_MS ?? 240_000);
const TILE = '[data-testid="photo-tile"]';

async function firstPage(browser: Browser, s: Session): Promise<number> {
  const context = await signedInContext(browser, s);
  const page = await context.newPage();
  const t = performance.now();
  await page.goto(`${s.url}/gallery`);
  await page.locator(TILE).first().waitFor();
  const elapsed = performance.now() - t;
  await context.close();
  return elapsed;
}

async function scrollToEnd(browser: Browser, s: Session, lastName: string) {
  const context = await signedInContext(browser, s);
  const page = await context.newPage();
  await page.goto(`${s.url}/gallery`);
  await page.locator(TILE).first().waitFor();
  const t = performance.now();
  let maxTiles = 0;
  let reached = false;
  while (performance.now() - t < SCROLL_LIMIT_MS) {
    const state = await page.evaluate(
      ({ tile, name }) => {
        window.scrollTo(0, document.documentElement.scrollHeight);
        const tiles = document.querySelectorAll(tile);
        const last = [...tiles].some((el) => el.getAttribute('aria-label') === `Open ${name}`);
        return { tiles: tiles.length, last };
      },
      { tile: TILE, name: lastName },
    );
    maxTiles = Math.max(maxTiles, state.tiles);
    if (state.last) {
      reached = true;
      break;
    }
    await page.waitForTimeout(250);
  }
  const seconds = (performance.now() - t) / 1000;
  await context.close();
  return { maxTiles, reached, seconds };
}

export async function runGallery(libs: Libraries, runs = 5): Promise<Row[]> {
  const browser = await launch();
  try {
    // Warm the server and the browser cache of the app's code once.
    await firstPage(browser, libs.small);
    const small: number[] = [];
    const big: number[] = [];
    for (let i = 0; i < runs; i++) {
      small.push(await firstPage(browser, libs.small));
      big.push(await firstPage(browser, libs.big));
    }
    const a = median(small);
    const b = median(big);
    const endSmall = await scrollToEnd(browser, libs.small, libs.lastName.small);
    const endBig = await scrollToEnd(browser, libs.big, libs.lastName.big);
    const tiles = Math.max(endSmall.maxTiles, endBig.maxTiles);
    return [
      {
        id: 'P4',
        measure: `time to first gallery page, 100,000 photos vs 100 (median of ${runs})`,
        value: ms(b),
        ceiling: `${ms(a)} with 100`,
        ratio: fmtRatio(b / a),
        target: `ratio <= ${TARGET_RATIO}`,
        met: b / a <= TARGET_RATIO,
      },
      {
        id: 'P4',
        measure: 'most photo tiles in the DOM while scrolling to the end (100,000)',
        value: String(endBig.maxTiles),
        ceiling: `${endSmall.maxTiles} with 100`,
        ratio: '',
        target: `<= ${TARGET_TILES}`,
        met: tiles <= TARGET_TILES,
      },
      {
        id: 'P4',
        measure: 'last photo reached by scrolling (100,000)',
        value: endBig.reached ? `yes, ${endBig.seconds.toFixed(0)} s` : `no, after ${endBig.seconds.toFixed(0)} s`,
        ceiling: `${endSmall.reached ? 'yes' : 'no'}, ${endSmall.seconds.toFixed(1)} s with 100`,
        ratio: '',
        target: 'reached',
        met: endBig.reached && endSmall.reached,
      },
    ];
  } finally {
    await browser.close();
  }
}

if (isMain(import.meta.url)) {
  const runs = Number(process.argv[2] ?? 5);
  runStandalone((libs) => runGallery(libs, runs));
}
