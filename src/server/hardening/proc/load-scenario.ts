import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { client, startServer, type ServerProcess } from './spawn.js';

export interface LoadFigures {
  ratePerUser: number | null;
  users: number;
  connections: number;
  seconds: number;
  requests: number;
  rps: number;
  errors: number;
  non2xx: number;
  p50: number;
  p99: number;
  max: number;
}

/**
 * `connections` simulated users (each connection is one of `users` signed-in accounts) for
 * `seconds` of mixed traffic against the real server process on loopback: dashboard queries,
 * recorded activities, gallery pages and thumbnails.
 */
export async function runLoad(opts: {
  connections: number;
  seconds: number;
  users: number;
  /** e.g. DATABASE_URL to run on PostgreSQL instead of the embedded PGlite. */
  env?: Record<string, string>;
  /**
   * Requests per second each simulated user sends (a user reads, then acts: think time). Absent:
   * a closed loop, every connection sending its next request the moment the last one answers,
   * which measures saturation rather than users.
   */
  ratePerUser?: number;
}): Promise<LoadFigures> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'eyevu-load-'));
  let srv: ServerProcess | undefined;
  try {
    srv = await startServer({ DATA_DIR: dataDir, LOG_LEVEL: 'error', ...opts.env });
    const accounts: Array<{ cookie: string; thumbs: string[] }> = [];
    for (let i = 0; i < opts.users; i++) {
      const c = client(() => srv!.url);
      const res = await c.req('POST', '/api/auth/register', {
        firstName: 'Load',
        lastName: `User${i}`,
        email: `load${i}@example.com`,
        password: 'secret123',
      });
      if (res.status !== 201) throw new Error(`register ${res.status}`);
      const page = (await (await c.req('GET', '/api/photos?limit=50')).json()) as {
        items: Array<{ thumbnailUrl: string }>;
      };
      accounts.push({ cookie: c.cookie, thumbs: page.items.map((p) => p.thumbnailUrl) });
    }
    let n = 0;
    const pick = () => accounts[n++ % accounts.length]!;
    const mixes: Array<
      (a: (typeof accounts)[number]) => {
        method: string;
        path: string;
        body?: string;
        headers?: Record<string, string>;
      }
    > = [
      () => ({ method: 'GET', path: '/api/stats?utcOffsetMinutes=0' }),
      () => ({ method: 'GET', path: '/api/rewards' }),
      () => ({ method: 'GET', path: '/api/app-status' }),
      () => ({ method: 'GET', path: '/api/subscription' }),
      () => ({ method: 'GET', path: '/api/activities' }),
      () => ({ method: 'GET', path: '/api/photos?limit=50' }),
      (a) => ({ method: 'GET', path: a.thumbs[Math.floor(Math.random() * a.thumbs.length)]! }),
      (a) => ({ method: 'GET', path: a.thumbs[Math.floor(Math.random() * a.thumbs.length)]! }),
      () => ({
        method: 'POST',
        path: '/api/activities',
        body: JSON.stringify({
          app: 'YouTube',
          adDuration: 30,
          gameData: { gameType: 'memory', score: 60, completed: true },
        }),
        headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      }),
    ];
    let m = 0;
    const result = await autocannon({
      url: srv.url,
      connections: opts.connections,
      duration: opts.seconds,
      timeout: 10,
      ...(opts.ratePerUser ? { connectionRate: opts.ratePerUser } : {}),
      requests: [
        {
          setupRequest: (req) => {
            const a = pick();
            const r = mixes[m++ % mixes.length]!(a);
            return { ...req, ...r, headers: { ...(r.headers ?? {}), cookie: a.cookie } };
          },
        },
      ],
    });
    return {
      ratePerUser: opts.ratePerUser ?? null,
      users: opts.users,
      connections: opts.connections,
      seconds: opts.seconds,
      requests: result.requests.total,
      rps: Math.round(result.requests.average),
      errors: result.errors + result.timeouts,
      non2xx: result.non2xx,
      p50: result.latency.p50,
      p99: result.latency.p99,
      max: result.latency.max,
    };
  } finally {
    await srv?.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
}
