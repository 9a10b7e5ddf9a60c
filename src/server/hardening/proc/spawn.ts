import { spawn, type ChildProcess } from 'node:child_process';
import { fromRoot } from '../../lib/paths';

export interface ServerProcess {
  child: ChildProcess;
  port: number;
  url: string;
  /** Everything the process wrote, for failure messages. */
  output: () => string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts src/server/hardening/proc/test-server.ts with tsx on a free port; resolves when it listens. */
export function startServer(
  env: Record<string, string | undefined>,
  // tsx compiles the server and PGlite migrates at each start: well under a minute alone, several
  // on a loaded 2-core machine (another test file's processes share the cores).
  timeoutMs = 180_000,
  /** Extra node flags, e.g. `--cpu-prof` (not allowed in NODE_OPTIONS). */
  nodeArgs: string[] = [],
): Promise<ServerProcess> {
  const child = spawn(
    process.execPath,
    [...nodeArgs, '--import', 'tsx', fromRoot('src/server/hardening/proc/test-server.ts')],
    {
      cwd: fromRoot(),
      env: { ...process.env, NODE_ENV: 'test', PORT: '0', LOG_LEVEL: 'warn', DEMO_MODE: 'true', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start in ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /LISTENING (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        child.stdout!.on('data', (x: Buffer) => (out += x.toString()));
        const port = Number(m[1]);
        resolve({
          child,
          port,
          url: `http://127.0.0.1:${port}`,
          output: () => out.slice(-4000),
          kill: async (signal = 'SIGKILL') => {
            if (child.exitCode === null && child.signalCode === null) child.kill(signal);
            await exited;
          },
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}) before listening:\n${out}`));
    });
  });
}

/** A tiny HTTP client with a cookie jar of one session. */
export function client(base: () => string) {
  let cookie = '';
  return {
    setCookie: (c: string) => (cookie = c),
    get cookie() {
      return cookie;
    },
    async req(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
      const init: RequestInit = { method, headers: { ...(cookie ? { cookie } : {}), ...headers } };
      if (body instanceof FormData) init.body = body;
      else if (body !== undefined) {
        init.body = JSON.stringify(body);
        (init.headers as Record<string, string>)['content-type'] = 'application/json';
      }
      const res = await fetch(base() + path, init);
      const set = res.headers.get('set-cookie');
      if (set?.startsWith('eyevu_session=')) cookie = set.split(';')[0]!;
      return res;
    },
  };
}
