import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app';
import { signUp, testConfig } from '../test/harness';
import { startOwnCluster, type OwnCluster } from './proc/pg';
import { recordFigure } from './support';

/**
 * PostgreSQL stopped and restarted under traffic. While it is down every request that
 * needs it fails cleanly (503 with a message, never a 500), the process stays up, and it recovers
 * by itself when the database is back. Uses a cluster of its own, so stopping it harms no one.
 */
let cluster: OwnCluster;
let app: FastifyInstance;
let cleanup: () => void;
beforeAll(async () => {
  cluster = await startOwnCluster();
  const config = testConfig({ databaseUrl: cluster.url });
  cleanup = config.cleanup;
  app = await buildApp(config);
  await app.ready();
});
afterAll(async () => {
  await app?.close().catch(() => undefined);
  await cluster?.destroy();
  cleanup?.();
});

type Call = { method: 'GET' | 'POST'; url: string; payload?: object; auth: boolean };
const traffic: Call[] = [
  { method: 'GET', url: '/api/photos?limit=20', auth: true },
  { method: 'GET', url: '/api/stats', auth: true },
  { method: 'GET', url: '/api/rewards', auth: true },
  { method: 'GET', url: '/api/activities', auth: true },
  { method: 'GET', url: '/api/albums', auth: true },
  { method: 'GET', url: '/api/subscription', auth: true },
  { method: 'GET', url: '/api/auth/user', auth: true },
  // A write that needs no clock to pass (recording it waits for the ad's end; see ad-break.api.test.ts).
  { method: 'POST', url: '/api/ad-breaks', payload: { app: 'YouTube' }, auth: true },
  { method: 'POST', url: '/api/app-status/heartbeat', auth: true },
];

describe('database stopped and restarted during traffic', () => {
  it('503 with a message while down, no 5xx other than 503, recovery without a restart', async () => {
    const { cookie } = await signUp(app);
    const send = (c: Call) =>
      app.inject({ method: c.method, url: c.url, payload: c.payload, headers: c.auth ? { cookie } : {} });
    for (const c of traffic) expect((await send(c)).statusCode, c.url).toBeLessThan(300);

    // Background traffic across the stop and the start.
    let running = true;
    const seen: Record<number, number> = {};
    const bad: string[] = [];
    const loop = (async () => {
      let i = 0;
      while (running) {
        const c = traffic[i++ % traffic.length]!;
        const res = await send(c);
        seen[res.statusCode] = (seen[res.statusCode] ?? 0) + 1;
        if (res.statusCode >= 500 && res.statusCode !== 503)
          bad.push(`${c.method} ${c.url} -> ${res.statusCode} ${res.body}`);
        if (res.statusCode === 503 && typeof res.json().message !== 'string')
          bad.push(`503 without message: ${res.body}`);
        await new Promise((r) => setTimeout(r, 5));
      }
    })();

    let recoveredMs = -1;
    try {
      await new Promise((r) => setTimeout(r, 300));
      await cluster.stop();
      expect(cluster.pid()).toBeNull();
      // Down: every database-backed call is a clean 503; the process itself answers.
      for (let round = 0; round < 2; round++) {
        for (const c of traffic) {
          const res = await send(c);
          expect(res.statusCode, `${c.method} ${c.url}: ${res.body}`).toBe(503);
          expect(res.json().message).toMatch(/temporarily unavailable/);
        }
      }
      expect((await app.inject({ url: '/healthz' })).statusCode).toBe(200);
      expect((await app.inject({ url: '/readyz' })).statusCode).toBe(503);
      expect((await app.inject({ url: '/api/config' })).statusCode).toBe(200);

      const downAt = Date.now();
      cluster.start();
      for (let i = 0; i < 200; i++) {
        if ((await app.inject({ url: '/readyz' })).statusCode === 200) {
          recoveredMs = Date.now() - downAt;
          break;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(recoveredMs).toBeGreaterThanOrEqual(0);
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      running = false;
      await loop;
    }
    // Recovered: the same session works, writes land.
    for (const c of traffic) expect((await send(c)).statusCode, c.url).toBeLessThan(300);
    expect(bad).toEqual([]);
    expect(seen[503]).toBeGreaterThan(0);
    await recordFigure('5 database faults', 'recovery after restart (ms)', recoveredMs);
    await recordFigure('5 database faults', 'answers during the outage', JSON.stringify(seen));
  }, 120_000);
});
