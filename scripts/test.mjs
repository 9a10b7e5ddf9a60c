// `npm test`: lint, typecheck and every suite, with nothing silently skipped. Installs Chromium and
// PostgreSQL with apt-get when they are missing and we are root; otherwise stops and names what to install.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { stripVTControlCharacters } from 'node:util';
import { findPgBin, startCluster, stopCluster } from './pg-cluster.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const isRoot = process.getuid?.() === 0;

function ensureDebianPackage(name, present) {
  if (present()) return;
  if (!isRoot || !existsSync('/usr/bin/apt-get')) {
    console.error(`\nMissing ${name}. Install it with: sudo apt-get install -y ${name}\n`);
    process.exit(1);
  }
  console.log(`Installing ${name} with apt-get...`);
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
  execFileSync('apt-get', ['install', '-y', '-qq', name], {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (!present()) {
    console.error(`${name} is still missing after apt-get install`);
    process.exit(1);
  }
}

ensureDebianPackage('chromium', () => existsSync(CHROMIUM));

let cluster;
if (!process.env.TEST_DATABASE_URL) {
  ensureDebianPackage('postgresql', () => findPgBin() !== null);
  cluster = await startCluster();
  process.env.TEST_DATABASE_URL = cluster.url;
  console.log(`PostgreSQL for tests on ${cluster.url} (pid ${cluster.pid})`);
}
const cleanup = () => {
  if (cluster) stopCluster(cluster.dir);
  cluster = undefined;
};
process.on('exit', cleanup);
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));

mkdirSync('.tmp', { recursive: true });
const totals = { passed: 0, failed: 0, skipped: 0 };
const failedSteps = [];

function run(label, cmd, args, env = {}) {
  console.log(`\n=== ${label} ===`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.status !== 0) failedSteps.push(label);
  return r.status === 0;
}

/** What failed, for the end of the output: CI shows its tail, far below each runner's own summary. */
const failures = [];
const firstLines = (text, n = 6) =>
  stripVTControlCharacters(String(text ?? ''))
    .split('\n')
    .slice(0, n)
    .join('\n    ');

function countVitest(file) {
  if (!existsSync(file)) return;
  const j = JSON.parse(readFileSync(file, 'utf8'));
  totals.passed += j.numPassedTests ?? 0;
  totals.failed += j.numFailedTests ?? 0;
  totals.skipped += (j.numPendingTests ?? 0) + (j.numTodoTests ?? 0);
  for (const f of j.testResults ?? []) {
    const name = String(f.name).replace(process.cwd() + '/', '');
    // A file whose hook or import failed: its tests count as skipped, and only this message says why.
    // A describe block's failed hook leaves no message here (vitest prints it in its summary above).
    if (f.status === 'failed' && !(f.assertionResults ?? []).some((a) => a.status === 'failed'))
      failures.push(
        `${name}\n    ${f.message ? firstLines(f.message) : 'a hook failed: its tests were skipped (the reason is in the vitest summary above)'}`,
      );
    for (const a of f.assertionResults ?? []) {
      if (a.status === 'failed') failures.push(`${name} > ${a.fullName}\n    ${firstLines(a.failureMessages?.[0])}`);
    }
  }
}

function countPlaywright(file) {
  if (!existsSync(file)) return;
  const s = JSON.parse(readFileSync(file, 'utf8')).stats ?? {};
  totals.passed += (s.expected ?? 0) + (s.flaky ?? 0);
  totals.failed += s.unexpected ?? 0;
  totals.skipped += s.skipped ?? 0;
}

// Static checks first: a type error or lint failure fails CI like a failing test does.
run('lint (ESLint + Prettier)', 'npm', ['run', 'lint']);
run('typecheck (TypeScript)', 'npm', ['run', 'typecheck']);

for (const f of ['.tmp/vitest.json', '.tmp/vitest-pg.json', '.tmp/playwright.json', '.tmp/node-versions.json'])
  rmSync(f, { force: true });

run('unit, component and API tests (PGlite)', 'npx', [
  'vitest',
  'run',
  '--reporter=default',
  '--reporter=json',
  '--outputFile.json=.tmp/vitest.json',
]);
countVitest('.tmp/vitest.json');

run(
  'API tests (PostgreSQL)',
  'npx',
  ['vitest', 'run', 'api.test', '--reporter=default', '--reporter=json', '--outputFile.json=.tmp/vitest-pg.json'],
  { EYEVU_TEST_DB: 'postgres' },
);
countVitest('.tmp/vitest-pg.json');

if (run('build', 'npm', ['run', 'build'])) {
  run('end-to-end tests (Chromium)', 'npx', ['playwright', 'test', '--reporter=list,json'], {
    PLAYWRIGHT_JSON_OUTPUT_NAME: '.tmp/playwright.json',
  });
  countPlaywright('.tmp/playwright.json');
  // The same build on the other Node versions `engines` promises (fetched from the npm registry).
  run('the built server on Node 22 and 24', 'node', ['scripts/node-versions.mjs']);
  countVitest('.tmp/node-versions.json');
}

cleanup();
if (failures.length) console.log(`\n=== what failed (vitest) ===\n${failures.slice(0, 20).join('\n')}`);
console.log(`\nFailed steps: ${failedSteps.length ? failedSteps.join(', ') : 'none'}`);
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(failedSteps.length || totals.failed ? 1 : 0);
