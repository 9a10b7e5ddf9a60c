import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../e2e/chromium';
import { register, waitAnalysisIdle } from './lib/http.js';
import { startServer, removeDir } from './lib/server.js';

const server = await startServer();
try {
  const s = await register(server.url, 'dbg');
  await waitAnalysisIdle(s, 300_000);
  const chrome = await chromeLauncher.launch({ chromePath: CHROMIUM_PATH, chromeFlags: ['--headless=new', ...CHROMIUM_ARGS] });
  for (const p of (process.env.PAGES ?? '/pricing').split(',')) {
    const r = await lighthouse(`${s.url}${p}`, { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: ['performance'] },
      { extends: 'lighthouse:default', settings: { formFactor: 'mobile', extraHeaders: { Cookie: s.cookie } } });
    const lhr = r!.lhr;
    const m = (lhr.audits['metrics']?.details as any).items[0];
    console.log(p, 'score', lhr.categories.performance!.score, 'obsFCP', m.observedFirstContentfulPaint, 'obsLCP', m.observedLargestContentfulPaint, 'FCP', m.firstContentfulPaint, 'LCP', m.largestContentfulPaint, 'TBT', m.totalBlockingTime, 'SI', m.speedIndex, 'CLS', m.cumulativeLayoutShift);
    for (const it of (lhr.audits['network-requests']?.details as any).items) console.log('  ', it.priority, it.resourceType, Math.round(it.networkRequestTime), Math.round(it.networkEndTime), it.url.replace(s.url, ''));
    for (const id of ['largest-contentful-paint-element', 'render-blocking-resources', 'lcp-lazy-loaded', 'bootup-time', 'mainthread-work-breakdown']) {
      const a = lhr.audits[id]; if (a) console.log(' ', id, a.displayValue ?? '', a.score);
    }
    const lcpEl = JSON.stringify(lhr.audits['largest-contentful-paint-element']?.details).slice(0, 1200);
    console.log(lcpEl);
  }
  chrome.kill();
} finally {
  await server.stop();
  removeDir(server.dataDir);
}
