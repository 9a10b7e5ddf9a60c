/**
 * Where a Lighthouse run's wall time goes on this machine: per process (and each process's main
 * thread), CPU time and time spent runnable but waiting for a core (schedstat's run_delay), plus the
 * machine's idle share over each audit. A diagnostic, no target (bench/README, "P5 on a quiet machine").
 *   BENCH_SKIP_BUILD=1 [PAGES=/,/gallery] [RUNS=2] npx tsx bench/lh-sched.ts
 * RENICE_CHROMIUM=1 with the command under `nice -n 10` runs Chromium at the normal priority and
 * this process and the server below it.
 */
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { readdirSync, readFileSync } from 'node:fs';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../e2e/chromium';
import { register, waitAnalysisIdle } from './lib/http.js';
import { withServer } from './lib/server.js';

type Snap = Map<string, { cpu: number; wait: number; proc: string }>;

function label(pid: number): string {
  try {
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/[\0 ]/);
    const type = cmd.find((a) => a.startsWith('--type='));
    const util = cmd.find((a) => a.startsWith('--utility-sub-type='));
    if (cmd[0]?.includes('chrom')) return `chromium ${type ?? 'browser'}${util ? ' ' + util.slice(19) : ''}`;
    return `${cmd[0]?.split('/').pop()} ${cmd.slice(1, 3).join(' ').slice(0, 40)}`;
  } catch {
    return '?';
  }
}

function snap(): Snap {
  const m: Snap = new Map();
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    const lab = label(Number(p));
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${p}/task`);
    } catch {
      continue;
    }
    for (const t of tasks) {
      try {
        const [run, wait] = readFileSync(`/proc/${p}/task/${t}/schedstat`, 'utf8').split(' ').map(Number);
        const comm = readFileSync(`/proc/${p}/task/${t}/comm`, 'utf8').trim();
        m.set(`${p}/${t}`, { cpu: run! / 1e6, wait: wait! / 1e6, proc: `${lab} [${p === t ? 'main:' : ''}${comm}]` });
      } catch {
        /* gone */
      }
    }
  }
  return m;
}

function cpuTotals() {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  return { idle: f[3]! + f[4]!, all: f.reduce((a, b) => a + b, 0), steal: f[7] ?? 0 };
}

async function main() {
  await withServer(async (server) => {
    const s = await register(server.url, 'lhs');
    await waitAnalysisIdle(s, 300_000);
    const chrome = await chromeLauncher.launch({
      chromePath: CHROMIUM_PATH,
      chromeFlags: ['--headless=new', ...CHROMIUM_ARGS],
    });
    if (process.env.RENICE_CHROMIUM) {
      const { execFileSync } = await import('node:child_process');
      for (const pid of readdirSync('/proc').filter((x) => /^\d+$/.test(x)))
        if (label(Number(pid)).startsWith('chromium')) execFileSync('renice', ['0', '-p', pid]);
      console.log(
        'reniced chromium to 0; this process nice',
        readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ')[16],
      );
    }
    try {
      for (const page of (process.env.PAGES ?? '/,/gallery,/pricing').split(',')) {
        for (let i = 0; i < Number(process.env.RUNS ?? 2); i++) {
          const a = snap();
          const c0 = cpuTotals();
          const t0 = Date.now();
          const r = await lighthouse(
            `${s.url}${page}`,
            { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: ['performance'] },
            {
              extends: 'lighthouse:default',
              settings: { formFactor: 'mobile', extraHeaders: { Cookie: s.cookie } },
            },
          );
          const wall = Date.now() - t0;
          const c1 = cpuTotals();
          const b = snap();
          const byProc = new Map<string, { cpu: number; wait: number }>();
          for (const [k, v] of b) {
            const o = a.get(k) ?? { cpu: 0, wait: 0 };
            const key = v.proc.includes('main:') ? v.proc : v.proc.replace(/ \[.*\]$/, ' [other threads]');
            const e = byProc.get(key) ?? { cpu: 0, wait: 0 };
            e.cpu += v.cpu - o.cpu;
            e.wait += v.wait - o.wait;
            byProc.set(key, e);
          }
          const lhr = r!.lhr;
          const m = (id: string) => lhr.audits[id]?.displayValue;
          console.log(
            `\n${page} #${i}: score ${Math.round(lhr.categories.performance!.score! * 100)} TBT ${m('total-blocking-time')} LCP ${m('largest-contentful-paint')} audit wall ${wall} ms; machine idle ${(((c1.idle - c0.idle) / (c1.all - c0.all)) * 100).toFixed(0)} %, steal ${c1.steal - c0.steal}`,
          );
          for (const [k, v] of [...byProc].sort((x, y) => y[1].cpu - x[1].cpu).slice(0, 14))
            if (v.cpu > 5)
              console.log(`  ${v.cpu.toFixed(0).padStart(6)} ms cpu ${v.wait.toFixed(0).padStart(6)} ms waiting  ${k}`);
        }
      }
    } finally {
      chrome.kill();
    }
    return [];
  });
}
main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
