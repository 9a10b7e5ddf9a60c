// What a build is made from, as one hash. `npm run build` records it in dist/; `npm start` rebuilds only
// when it differs, so a second start serves the existing build at once. Contents are hashed, not mtimes:
// a checkout or a copy touches every mtime without changing what the build would produce.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Where the hash of the inputs of the build in dist/ is kept. */
export const BUILD_STAMP = path.join(root, 'dist', 'build-inputs.sha256');

const INPUTS = [
  'src',
  'public',
  'index.html',
  'vite.config.ts',
  'tsconfig.json',
  'package.json',
  'package-lock.json',
  'scripts/build-server.mjs',
  'scripts/server-bundle.mjs',
  'scripts/precompress-web.mjs',
  'scripts/build-inputs.mjs',
];

// Tests are never bundled, so editing one does not make the build stale.
const isTest = (file) => /\.test\.tsx?$/.test(file);

function listFiles(rel) {
  const abs = path.join(root, rel);
  if (!existsSync(abs)) return [];
  if (!statSync(abs).isDirectory()) return [rel];
  return readdirSync(abs, { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() || entry.isFile() ? listFiles(path.join(rel, entry.name)) : []))
    .filter((file) => !isTest(file));
}

export function buildInputsHash(env = process.env) {
  const hash = createHash('sha256');
  for (const file of INPUTS.flatMap(listFiles).sort()) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(path.join(root, file)));
    hash.update('\0');
  }
  // VITE_ variables (the Stripe publishable key) are baked into the client at build time.
  for (const name of Object.keys(env)
    .filter((k) => k.startsWith('VITE_'))
    .sort()) {
    hash.update(`env ${name}=${env[name]}\0`);
  }
  return hash.digest('hex');
}

/** True when dist/ holds a complete build made from the current inputs. */
export function buildIsCurrent(env = process.env) {
  const outputs = ['dist/server/main.js', 'dist/web/index.html'].map((f) => path.join(root, f));
  if (!existsSync(BUILD_STAMP) || !outputs.every((f) => existsSync(f))) return false;
  return readFileSync(BUILD_STAMP, 'utf8').trim() === buildInputsHash(env);
}
