// `npm run dev`: the API from source under `tsx watch` (restarts on a server change) and Vite's dev server
// (hot reload for the client), which proxies /api to the API (vite.config.ts). Open the address Vite prints.
// Either one exiting stops the other, so a crash is never left half-running.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// Settings from .env (see .env.example); variables already in the environment win.
const envFile = path.join(root, '.env');
if (existsSync(envFile)) process.loadEnvFile(envFile);
const bin = (name) => path.join(root, 'node_modules', '.bin', process.platform === 'win32' ? `${name}.cmd` : name);

const env = {
  ...process.env,
  NODE_ENV: process.env.NODE_ENV ?? 'development',
  // Loopback by default: the API is reached through Vite, and on loopback the reset demo is on (README).
  HOST: process.env.HOST ?? '127.0.0.1',
  PORT: process.env.PORT ?? '5000',
};

const children = [
  // --include: the thread files are loaded by path in worker threads, which tsx watch does not follow.
  ['api', bin('tsx'), ['watch', '--clear-screen=false', '--include', 'src/server/**/*.ts', 'src/server/main.ts']],
  // Extra arguments go to Vite: `npm run dev -- --port 5174 --host`.
  ['web', bin('vite'), process.argv.slice(2)],
].map(([name, cmd, args]) => {
  const child = spawn(cmd, args, { cwd: root, env, stdio: 'inherit' });
  child.on('exit', (code, signal) => stopAll(name, code, signal));
  return child;
});

let stopping = false;
function stopAll(name, code, signal) {
  if (stopping) return;
  stopping = true;
  if (name) console.log(`\n[dev] ${name} exited (${signal ?? code}); stopping the other process.`);
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  process.exitCode = typeof code === 'number' ? code : 0;
}
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => stopAll(null, 0, sig));
