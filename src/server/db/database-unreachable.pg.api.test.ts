import type { FastifyInstance } from 'fastify';
import net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { buildApp } from '../app';
import { createTestDatabase, signUp, testConfig, type TestDatabase } from '../test/harness';

/**
 * PostgreSQL unreachable without a refusal: a failover to a host not up yet, a partition, a
 * firewall dropping packets. A connection is accepted (or its SYN just waits) and nothing answers.
 * The server is reached through a TCP proxy that, while holding, accepts connections and never
 * passes them on. (A stopped server, which refuses at once, is `hardening/db-faults.test.ts`.)
 */
interface HoldingProxy {
  port: number;
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

async function startHoldingProxy(target: { host: string; port: number }): Promise<HoldingProxy> {
  let holding = false;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    if (holding) return; // accepted, never answered
    const upstream = net.connect(target.port, target.host);
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    hold: () => void (holding = true),
    release: () => void (holding = false),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

let database: TestDatabase;
let proxy: HoldingProxy;
let app: FastifyInstance;
let cleanup: () => void;
beforeAll(async () => {
  database = await createTestDatabase();
  const direct = new URL(database.url!);
  proxy = await startHoldingProxy({ host: direct.hostname, port: Number(direct.port) });
  const proxied = new URL(direct);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(proxy.port);
  const config = testConfig({ databaseUrl: proxied.toString() });
  cleanup = config.cleanup;
  app = await buildApp(config);
  await app.ready();
});
afterAll(async () => {
  proxy?.release();
  await proxy?.close();
  await app?.close().catch(() => undefined);
  await database?.destroy();
  cleanup?.();
});

/** Ends every session of the test database but the caller's: the server's pool and its listener. */
async function terminateBackends() {
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  try {
    await admin.query(
      'select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    );
  } finally {
    await admin.end();
  }
}

it('a database that stops answering: requests get a 503 in bounded time, and all comes back with it', async () => {
  const { cookie } = await signUp(app);
  // The auth routes read the session from the database, never from the session cache.
  const me = () => app.inject({ method: 'GET', url: '/api/auth/user', headers: { cookie } });
  expect((await me()).statusCode).toBe(200);
  await vi.waitFor(() => expect(app.ctx.database.notifications.listening).toBe(true));

  proxy.hold();
  await terminateBackends();
  // The pool's connections are gone and new ones are never answered: with no connect timeout
  // (node-postgres has none by default) this waited for ever, and every request behind it.
  // More requests than the pool has connections, so some must open one (or wait for one).
  for (const down of await Promise.all(Array.from({ length: 12 }, me))) {
    expect(down.statusCode).toBe(503);
    expect(down.json()).toEqual({
      message: 'The service is temporarily unavailable. Please try again shortly.',
      code: 'unavailable',
    });
  }
  expect(app.ctx.database.notifications.listening).toBe(false);

  proxy.release();
  await vi.waitFor(async () => expect((await me()).statusCode).toBe(200), { timeout: 30_000, interval: 200 });
  // The listening connection too: one stuck connecting would have left every page cache
  // distrusted (read from the database) until a restart.
  await vi.waitFor(() => expect(app.ctx.database.notifications.listening).toBe(true), {
    timeout: 60_000,
    interval: 200,
  });
});
