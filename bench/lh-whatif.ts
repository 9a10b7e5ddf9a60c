/**
 * What Lighthouse's simulated (Lantern) metrics would be if some requests were not in the page load:
 * a diagnostic, no target (bench/README, "Lantern what-ifs"). Each page is gathered once per run
 * (signed in, as `lighthouse.bench.ts` does), then audited again from the saved artifacts with the
 * requests whose URL matches each pattern taken out of the devtools log. The simulation is
 * deterministic for one set of artifacts, so rows of one run compare exactly, whatever the load
 * was while gathering; runs differ by what finished before the observed paints.
 *
 *   BENCH_SKIP_BUILD=1 [PAGES=/,/gallery] [RUNS=2] [DROP='/assets/;/api/'] npx tsx bench/lh-whatif.ts
 *
 * DROP is a `;`-separated list of regular expressions, one what-if each.
 */
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../e2e/chromium';
import { register, waitAnalysisIdle } from './lib/http.js';
import { removeDir, withServer } from './lib/server.js';

const PAGES = (process.env.PAGES ?? '/,/gallery,/pricing').split(',');
const RUNS = Math.max(1, Number(process.env.RUNS ?? 2));
const DROPS = (process.env.DROP ?? '/assets/;/api/;/assets/index-;/api/photos/[^/]+/(thumbnail|small)')
  .split(';')
  .filter(Boolean);

interface DevtoolsEvent {
  method: string;
  params?: { requestId?: string; request?: { url: string } };
}

/** Lighthouse refuses to audit with settings other than those it gathered with. */
const settingsFor = (cookie: string) => ({ formFactor: 'mobile' as const, extraHeaders: { Cookie: cookie } });

/** The saved artifacts in `dir` audited again without the requests `drop` matches. */
async function auditWithout(dir: string, drop: RegExp | null, cookie: string) {
  const copy = mkdtempSync(path.join(os.tmpdir(), 'eyevu-lh-whatif-'));
  try {
    cpSync(dir, copy, { recursive: true });
    let dropped = 0;
    if (drop) {
      for (const f of readdirSync(copy).filter((n) => n.endsWith('.devtoolslog.json'))) {
        const log = JSON.parse(readFileSync(path.join(copy, f), 'utf8')) as DevtoolsEvent[];
        const ids = new Set(
          log
            .filter((e) => e.method === 'Network.requestWillBeSent' && drop.test(e.params?.request?.url ?? ''))
            .map((e) => e.params!.requestId!),
        );
        dropped += ids.size;
        const kept = log.filter((e) => !(e.params?.requestId && ids.has(e.params.requestId)));
        writeFileSync(path.join(copy, f), JSON.stringify(kept));
      }
    }
    const result = await lighthouse(
      undefined,
      { auditMode: copy, output: 'json', logLevel: 'error', onlyCategories: ['performance'] },
      { extends: 'lighthouse:default', settings: settingsFor(cookie) },
    );
    const a = result!.lhr.audits;
    const ms = (id: string) => Math.round(a[id]?.numericValue ?? NaN);
    const element = JSON.stringify(a['largest-contentful-paint-element']?.details ?? {}).match(
      /"nodeLabel":"((?:[^"\\]|\\.){0,50})/,
    )?.[1];
    return {
      dropped,
      score: Math.round((result!.lhr.categories.performance?.score ?? 0) * 100),
      text: `FCP ${ms('first-contentful-paint')} LCP ${ms('largest-contentful-paint')} SI ${ms('speed-index')} TBT ${ms('total-blocking-time')} (LCP element: ${element ?? '?'})`,
    };
  } finally {
    removeDir(copy);
  }
}

async function main() {
  await withServer(async (server) => {
    const s = await register(server.url, 'whatif');
    await waitAnalysisIdle(s, 300_000);
    const chrome = await chromeLauncher.launch({
      chromePath: CHROMIUM_PATH,
      chromeFlags: ['--headless=new', ...CHROMIUM_ARGS],
    });
    const gathered = mkdtempSync(path.join(os.tmpdir(), 'eyevu-lh-gather-'));
    try {
      for (const page of PAGES) {
        for (let run = 0; run < RUNS; run++) {
          const dir = path.join(gathered, `${page.replace(/\W/g, '_')}-${run}`);
          await lighthouse(
            `${s.url}${page}`,
            { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: ['performance'], gatherMode: dir },
            { extends: 'lighthouse:default', settings: settingsFor(s.cookie) },
          );
          const base = await auditWithout(dir, null, s.cookie);
          console.log(`${page} run ${run + 1}: ${base.score}  ${base.text}`);
          for (const pattern of DROPS) {
            const r = await auditWithout(dir, new RegExp(pattern), s.cookie);
            console.log(`  without ${pattern} (${r.dropped} requests): ${r.score}  ${r.text}`);
          }
        }
      }
    } finally {
      chrome.kill();
      removeDir(gathered);
    }
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
