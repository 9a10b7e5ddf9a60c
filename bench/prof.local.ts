import { chromium } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../e2e/chromium';
import { register, waitAnalysisIdle } from './lib/http.js';
import { startServer } from './lib/server.js';

const server = await startServer();
try {
  const s = await register(server.url, 'prof');
  await waitAnalysisIdle(s, 300_000);
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  for (const p of (process.argv[2] ?? '/,/gallery,/pricing').split(',')) {
    const ctx = await browser.newContext({ extraHTTPHeaders: { Cookie: s.cookie }, viewport: { width: 412, height: 823 } });
    const page = await ctx.newPage();
    const cdp = await ctx.newCDPSession(page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
    await cdp.send('Profiler.start');
    await page.goto(server.url + p);
    await page.waitForTimeout(3000);
    const { profile } = (await cdp.send('Profiler.stop')) as any;
    const dt = new Map<number, number>();
    for (let i = 0; i < profile.samples.length; i++) dt.set(profile.samples[i], (dt.get(profile.samples[i]) ?? 0) + profile.timeDeltas[i]);
    const agg = new Map<string, number>();
    for (const n of profile.nodes) {
      const cf = n.callFrame;
      const k = `${cf.functionName || '(anon)'} ${cf.url.split('/').pop()}:${cf.lineNumber}`;
      agg.set(k, (agg.get(k) ?? 0) + (dt.get(n.id) ?? 0));
    }
    const byUrl = new Map<string, number>();
    for (const n of profile.nodes) { const u = n.callFrame.url.split('/').pop() || n.callFrame.functionName; byUrl.set(u, (byUrl.get(u) ?? 0) + (dt.get(n.id) ?? 0)); }
    console.log('==', p);
    console.log([...byUrl].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([k, v]) => `${(v / 1000).toFixed(0)}ms ${k}`).join('\n'));
    console.log([...agg].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([k, v]) => `  ${(v / 1000).toFixed(1)}ms ${k}`).join('\n'));
    await ctx.close();
  }
  await browser.close();
} finally {
  await server.stop();
}
