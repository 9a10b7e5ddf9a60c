import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fromRoot } from './lib/paths';
import { createTestDatabase, testDbKind, type TestDatabase } from './test/harness';

/**
 * `WEB_CONCURRENCY` as `npm start` runs it: main.ts itself (node:cluster), not a test server. Which
 * process answered a request is read from the server's own request log (pino writes the pid on
 * every line), so no route exists for the test.
 */

interface MainProcess {
  child: ChildProcess;
  port: number;
  output: () => string;
  /** Resolves once the output has a line for which `find` answers something. */
  waitFor<T>(find: (lines: LogLine[]) => T | undefined, what: string, timeoutMs?: number): Promise<T>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

interface LogLine {
  pid?: number;
  msg?: string;
  req?: { url?: string };
  reqId?: string;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

function startMain(env: Record<string, string | undefined>, port: number): MainProcess {
  const all: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: 'info',
    ...env,
  };
  for (const [k, v] of Object.entries(all)) if (v === undefined) delete all[k];
  const child = spawn(process.execPath, ['--import', 'tsx', fromRoot('src/server/main.ts')], {
    cwd: fromRoot(),
    env: all,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString();
    for (const l of listeners) l();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.once('exit', (code, signal) => {
      r({ code, signal });
      for (const l of listeners) l();
    }),
  );
  const lines = (): LogLine[] =>
    out.split('\n').flatMap((l) => {
      if (!l.startsWith('{')) return [];
      try {
        return [JSON.parse(l) as LogLine];
      } catch {
        return []; // a line still being written
      }
    });
  return {
    child,
    port,
    output: () => out.slice(-4000),
    exited,
    waitFor: (find, what, timeoutMs = 60_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found = find(lines());
          if (found !== undefined) {
            done();
            resolve(found);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            done();
            reject(new Error(`exited before ${what}:\n${out.slice(-4000)}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`no ${what} in ${timeoutMs} ms:\n${out.slice(-4000)}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      }),
  };
}

/** One request on a connection of its own: node:cluster hands each new connection to the next process. */
function request(
  port: number,
  method: string,
  urlPath: string,
  opts: { body?: unknown; cookie?: string } = {},
): Promise<{ status: number; body: string; setCookie?: string }> {
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: urlPath,
        agent: false,
        headers: {
          ...(body ? { 'content-type': 'application/json' } : {}),
          ...(opts.cookie ? { cookie: opts.cookie } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: text, setCookie: res.headers['set-cookie']?.[0] }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('WEB_CONCURRENCY', () => {
  const dirs: string[] = [];
  const started: MainProcess[] = [];
  let database: TestDatabase | undefined;
  afterAll(async () => {
    for (const p of started) {
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    }
    await database?.destroy();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const dataDir = () => {
    const d = mkdtempSync(path.join(os.tmpdir(), 'eyevu-cluster-'));
    dirs.push(d);
    return d;
  };

  it('is refused on the embedded PGlite database, with the reason and the way out', async () => {
    const main = startMain({ WEB_CONCURRENCY: '2', DATA_DIR: dataDir(), DATABASE_URL: undefined }, await freePort());
    started.push(main);
    const { code } = await main.exited;
    expect(code).toBe(1);
    expect(main.output()).toContain('WEB_CONCURRENCY=2 needs DATABASE_URL');
    expect(main.output()).toContain('embedded PGlite database runs inside one process');
  }, 120_000);

  // A cluster needs a PostgreSQL server: on the PostgreSQL run of the API tests (npm test has both).
  if (testDbKind === 'postgres') {
    it('runs two server processes on PostgreSQL that share sessions, and SIGTERM stops them all', async () => {
      database = await createTestDatabase();
      const port = await freePort();
      const main = startMain({ WEB_CONCURRENCY: '2', DATA_DIR: dataDir(), DATABASE_URL: database.url! }, port);
      started.push(main);
      const workers = await main.waitFor((lines) => {
        const pids = new Set(lines.filter((l) => /^Eyevu on .* of 2\)$/.test(l.msg ?? '')).map((l) => l.pid!));
        return pids.size === 2 ? [...pids] : undefined;
      }, 'two listening server processes');
      expect(workers).not.toContain(main.child.pid);
      const children = `/proc/${main.child.pid}/task/${main.child.pid}/children`;
      if (existsSync(children)) {
        expect(readFileSync(children, 'utf8').trim().split(/\s+/).map(Number).sort()).toEqual([...workers].sort());
      }

      /** The process that logged the request for `url`. */
      const servedBy = (url: string) =>
        main.waitFor(
          (lines) => lines.find((l) => l.msg === 'incoming request' && l.req?.url === url)?.pid,
          `the request log of ${url}`,
          10_000,
        );

      const reg = await request(port, 'POST', '/api/auth/register?via=register', {
        body: { firstName: 'Two', lastName: 'Processes', email: 'cluster@example.com', password: 'secret123' },
      });
      expect(reg.status, reg.body).toBe(201);
      const cookie = reg.setCookie!.split(';')[0]!;
      const registeredOn = await servedBy('/api/auth/register?via=register');
      expect(workers).toContain(registeredOn);

      // Connections go to the processes in turn: within a few, the session is used on the other one.
      const answeredBy = new Set<number>();
      for (let i = 0; i < 4; i++) {
        const url = `/api/auth/user?via=${i}`;
        const me = await request(port, 'GET', url, { cookie });
        expect(me.status, me.body).toBe(200);
        expect(JSON.parse(me.body)).toMatchObject({ user: { email: 'cluster@example.com' } });
        answeredBy.add(await servedBy(url));
      }
      expect([...answeredBy].sort()).toEqual([...workers].sort());

      main.child.kill('SIGTERM');
      const { code, signal } = await main.exited;
      expect({ code, signal }).toEqual({ code: 0, signal: null });
      expect(main.output()).toContain('SIGTERM received, stopping 2 server processes');
      // The primary leaves only once every server process has exited.
      for (const pid of workers) expect(alive(pid), `server process ${pid} still running`).toBe(false);
      // Starting three processes under tsx takes a few seconds on idle cores, much longer on busy ones.
    }, 120_000);
  }
});
