import type { FastifyInstance } from 'fastify';
import net from 'node:net';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { buildApp } from '../app';
import { createTestDatabase, signUp, testConfig, type TestDatabase } from '../test/harness';

/**
 * PostgreSQL unreachable without a refusal: a failover to a host not up yet, a partition, a
 * firewall dropping packets. A connection is accepted (or its SYN just waits) and nothing answers.
 * The server is reached through a TCP proxy that, while holding, accepts connections and never
 * passes them on, and `silence` also drops what open connections send either way, as a server
 * gone mid-statement without a reset. (A stopped server, which refuses at once, is
 * `hardening/db-faults.test.ts`.)
 */
interface HoldingProxy {
  port: number;
  hold(): void;
  /**
   * Holds new connections until `release`, and open ones carry nothing any more, ever: their
   * server is gone (a failover's new server is reached by new connections only).
   */
  silence(): void;
  release(): void;
  close(): Promise<void>;
}

async function startHoldingProxy(target: { host: string; port: number }): Promise<HoldingProxy> {
  let holding = false;
  const silenced: (() => void)[] = [];
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
    let silent = false;
    silenced.push(() => void (silent = true));
    client.on('data', (d: Buffer) => void (silent || upstream.write(d)));
    upstream.on('data', (d: Buffer) => void (silent || client.write(d)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    hold: () => void (holding = true),
    silence: () => {
      holding = true;
      for (const silence of silenced.splice(0)) silence();
    },
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

it('a database that vanishes mid-statement: the statements answer 503 within the bound, and their connections are not reused', async () => {
  const queryMs = 1_000;
  const direct = new URL(database.url!);
  const quiet = await startHoldingProxy({ host: direct.hostname, port: Number(direct.port) });
  const proxied = new URL(direct);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(quiet.port);
  const config = testConfig({ databaseUrl: proxied.toString(), databasePoolMax: 4, databaseQueryTimeoutMs: queryMs });
  const bounded = await buildApp(config);
  try {
    await bounded.ready();
    const { db } = bounded.ctx.database;
    // The server's own bound: a slow statement is cancelled there (its connection kept), and work
    // that asks for no bound is left to finish.
    await expect(db.execute(sql`select pg_sleep(3)`)).rejects.toMatchObject({ cause: { code: '57014' } });
    await bounded.ctx.database.query('select pg_sleep(1.5)', { long: true });

    // No demo library: its seeding in the background would hold the pool's connections.
    bounded.ctx.onUserCreated.length = 0;
    const { cookie } = await signUp(bounded);
    const me = () => bounded.inject({ method: 'GET', url: '/api/auth/user', headers: { cookie } });
    // Every connection of the pool open, so the statements below are sent on them, not waiting to
    // connect (a request may read on two at once).
    await Promise.all([1, 2, 3, 4].map(() => db.execute(sql`select pg_sleep(0.2)`)));
    const pool = (db as unknown as { $client: pg.Pool }).$client;
    expect(pool.totalCount).toBe(4);

    quiet.silence();
    const started = Date.now();
    const [request, inTransaction] = await Promise.allSettled([
      me(),
      db.transaction(async (tx) => {
        await tx.execute(sql`select 1`);
      }),
    ]);
    const took = Date.now() - started;
    // The client's bound is the server's plus 5 s, before the 10 s bound on connecting: without it
    // both waited for TCP to give up (for ever here: the proxy's end acknowledges every byte).
    expect(took).toBeLessThan(9_000);
    expect(request.status === 'fulfilled' && request.value.statusCode).toBe(503);
    expect(request.status === 'fulfilled' && request.value.json()).toEqual({
      message: 'The service is temporarily unavailable. Please try again shortly.',
      code: 'unavailable',
    });
    expect(inTransaction.status).toBe('rejected');

    // Nothing of the pool is left on the vanished server: not the connections whose statements went
    // unanswered (drizzle keeps a transaction's whose `begin` failed checked out for ever), nor the
    // idle ones.
    await vi.waitFor(() => expect(pool.totalCount).toBe(0), { timeout: 2_000, interval: 20 });
    quiet.release();
    for (const up of await Promise.all([1, 2, 3, 4].map(me))) expect(up.statusCode).toBe(200);
  } finally {
    quiet.release();
    await bounded.close().catch(() => undefined);
    await quiet.close();
    config.cleanup();
  }
}, 60_000);
