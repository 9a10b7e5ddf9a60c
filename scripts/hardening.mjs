// `npm run test:hardening`: the quick and long hardening suites (src/server/hardening), one file
// at a time, then a table of the figures each test recorded.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

mkdirSync('.tmp', { recursive: true });
const figures = path.resolve('.tmp/hardening-figures.jsonl');
rmSync(figures, { force: true });
const t0 = Date.now();
const r = spawnSync('npx', ['vitest', 'run', '--config', 'vitest.hardening.config.ts', ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, HARDENING_FIGURES: figures },
});
const rows = existsSync(figures)
  ? readFileSync(figures, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
  : [];
rows.sort((a, b) => a.promise.localeCompare(b.promise, 'en', { numeric: true }));
const w = [
  Math.max(7, ...rows.map((x) => x.promise.length)),
  Math.max(6, ...rows.map((x) => x.figure.length)),
  Math.max(5, ...rows.map((x) => String(x.value).length)),
];
const line = (c) => `| ${c.map((v, i) => String(v).padEnd(w[i])).join(' | ')} |`;
console.log(`\nHardening figures (${((Date.now() - t0) / 60000).toFixed(1)} min)\n`);
console.log(line(['promise', 'figure', 'value']));
console.log(`|${w.map((n) => '-'.repeat(n + 2)).join('|')}|`);
for (const x of rows) console.log(line([x.promise, x.figure, x.value]));
console.log(r.status === 0 ? '\nAll hardening tests passed.' : '\nSome hardening tests FAILED (see above).');
process.exit(r.status ?? 1);
