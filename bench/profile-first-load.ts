/**
 * Where the first load's main-thread time goes, signed in, under 4x CPU throttling: every long task
 * (PerformanceObserver `longtask`, with the TBT it would add) and the functions with the most self
 * time inside the first seconds (a V8 CPU profile). Not a target bench: the tool behind P5's TBT work.
 *
 *   npx tsx bench/profile-first-load.ts            # this checkout's build; PROFILE_ROOT=/work/main for another
 *
 * PROFILE_PAGES=/,/gallery (default all three), PROFILE_RUNS=3, PROFILE_TOP=25 functions.
 */
import { chromium } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../e2e/chromium';
import { register, waitAnalysisIdle } from './lib/http.js';
import { removeDir, ROOT, startServer } from './lib/server.js';

const PAGES = process.env.PROFILE_PAGES?.split(',') ?? ['/', '/gallery', '/pricing'];
const RUNS = Number(process.env.PROFILE_RUNS ?? 3);
const TOP = Number(process.env.PROFILE_TOP ?? 0);

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

async function main() {
  const server = await startServer({ root: process.env.PROFILE_ROOT ?? ROOT });
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const s = await register(server.url, 'prof');
    await waitAnalysisIdle(s, 300_000);
    for (const p of PAGES) {
      const totals: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        // A fresh context each run: cold cache and storage, as Lighthouse's first visit.
        const context = await browser.newContext({
          viewport: { width: 412, height: 823 },
          extraHTTPHeaders: { Cookie: s.cookie },
          serviceWorkers: 'block',
        });
        await context.addInitScript(() => {
          const w = window as unknown as { __long: { start: number; dur: number }[] };
          w.__long = [];
          new PerformanceObserver((l) => {
            for (const e of l.getEntries())
              w.__long.push({ start: Math.round(e.startTime), dur: Math.round(e.duration) });
          }).observe({ type: 'longtask', buffered: true });
        });
        const page = await context.newPage();
        const cdp = await context.newCDPSession(page);
        await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
        if (TOP) {
          await cdp.send('Profiler.enable');
          await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
          await cdp.send('Profiler.start');
        }
        await page.goto(`${server.url}${p}`, { waitUntil: 'load' });
        await page.waitForTimeout(4000);
        const long = await page.evaluate(
          () => (window as unknown as { __long: { start: number; dur: number }[] }).__long,
        );
        const tbt = long.reduce((a, t) => a + Math.max(0, t.dur - 50), 0);
        totals.push(tbt);
        console.log(`${p} run ${i + 1}: TBT ${tbt} ms, long tasks ${long.map((t) => `${t.dur}@${t.start}`).join(' ')}`);
        if (TOP) {
          const { profile } = (await cdp.send('Profiler.stop')) as {
            profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
          };
          const byId = new Map(profile.nodes.map((n) => [n.id, n]));
          const parent = new Map<number, number>();
          for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
          const name = (id: number) => {
            const f = byId.get(id)!.callFrame;
            return `${f.functionName || '(anon)'} ${f.url.split('/').pop()}:${f.lineNumber + 1}`;
          };
          // Busy stretches (no idle sample between them) stand in for tasks: each one's self time by
          // function and its inclusive time in components (capitalised names) and React's phases.
          const PHASES =
            /^(commitRoot|renderRootSync|renderRootConcurrent|commitMutationEffects|commitLayoutEffects|flushPassiveEffects|commitPassiveMountOnFiber|flushSyncWorkAcrossRoots_impl|performWorkOnRoot|onQueryUpdate|\(program\)|\(garbage collector\))$/;
          let seg: [number, number][] = [];
          let segMs = 0;
          const flush = () => {
            if (segMs >= 40) {
              const self = new Map<string, number>();
              const incl = new Map<string, number>();
              for (const [id, ms] of seg) {
                self.set(name(id), (self.get(name(id)) ?? 0) + ms);
                const seen = new Set<string>();
                for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
                  const fn = byId.get(cur)!.callFrame.functionName;
                  if ((/^[A-Z]/.test(fn) || PHASES.test(fn)) && !seen.has(fn)) {
                    seen.add(fn);
                    incl.set(fn, (incl.get(fn) ?? 0) + ms);
                  }
                }
              }
              const top = (m: Map<string, number>, k: number) =>
                [...m]
                  .sort((a, b) => b[1] - a[1])
                  .slice(0, k)
                  .map(([n, v]) => `${n} ${v.toFixed(0)}`)
                  .join(', ');
              console.log(`  busy ${segMs.toFixed(0)} ms\n    self: ${top(self, 8)}\n    incl: ${top(incl, TOP)}`);
            }
            seg = [];
            segMs = 0;
          };
          profile.samples.forEach((id, k) => {
            const ms = (profile.timeDeltas[k + 1] ?? 0) / 1000;
            if (byId.get(id)!.callFrame.functionName === '(idle)') return flush();
            seg.push([id, ms]);
            segMs += ms;
          });
          flush();
        }
        await context.close();
      }
      totals.sort((a, b) => a - b);
      console.log(
        `${p}: TBT (longtask, 4x) median ${totals[Math.floor(totals.length / 2)]} ms of ${totals.join(' / ')}`,
      );
    }
  } finally {
    await browser.close();
    await server.stop();
    removeDir(server.dataDir);
  }
}

void main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
