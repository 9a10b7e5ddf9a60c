// `npm start`: build only when dist/ is missing or was built from other sources, then run the server in
// this same process (so Ctrl-C and SIGTERM reach its graceful shutdown directly).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildIsCurrent } from './build-inputs.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// Settings from .env (see .env.example); variables already in the environment win.
const envFile = path.join(root, '.env');
if (existsSync(envFile)) process.loadEnvFile(envFile);

if (buildIsCurrent()) {
  console.log('Build is current (dist/build-inputs.sha256 matches the sources): starting it.');
} else {
  console.log('No build of the current sources in dist/: building...');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

await import(pathToFileURL(path.join(root, 'dist/server/main.js')).href);
