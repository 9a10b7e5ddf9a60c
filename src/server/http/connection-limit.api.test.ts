import type { FastifyInstance } from 'fastify';
import net from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { buildApp } from '../app';
import { loadConfig } from '../config';
import { connectionKey } from './connection-limit';
import { createTestDatabase, testConfig, type TestDatabase } from '../test/harness';

/**
 * Connections per client address on a server reached directly, on a listening server and raw
 * loopback sockets (standing for one remote client: `limitLoopbackConnections`).
 */
let app: FastifyInstance | undefined;
let database: TestDatabase | undefined;
let cleanup: (() => void) | undefined;
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await app?.close().catch(() => undefined);
  await database?.destroy();
  cleanup?.();
  app = database = cleanup = undefined;
});

async function listening(
  overrides: Parameters<typeof testConfig>[0],
  { host = '127.0.0.1', limitLoopback = true }: { host?: string; limitLoopback?: boolean } = {},
) {
  database = await createTestDatabase();
  const config = testConfig(overrides);
  cleanup = config.cleanup;
  app = await buildApp(config, { database, limitLoopbackConnections: limitLoopback });
  await app.listen({ port: 0, host });
  return (app.server.address() as net.AddressInfo).port;
}

/** A kept-alive connection that asked for /healthz: 'answered' once its answer came, 'closed' if closed first. */
function ask(port: number, host = '127.0.0.1'): { socket: net.Socket; outcome: Promise<'answered' | 'closed'> } {
  const socket = net.connect(port, host);
  sockets.push(socket);
  socket.on('error', () => undefined);
  const outcome = new Promise<'answered' | 'closed'>((resolve) => {
    socket.once('data', () => resolve('answered'));
    socket.once('close', () => resolve('closed'));
  });
  socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
  return { socket, outcome };
}

it('an address past its limit has its next connection closed at once; a closed one frees its place', async () => {
  const port = await listening({ maxConnectionsPerAddress: 3 });
  const held = [ask(port), ask(port), ask(port)];
  for (const c of held) expect(await c.outcome).toBe('answered');
  // Kept alive, the three are still open: the fourth is closed without an answer.
  expect(await ask(port).outcome).toBe('closed');
  const first = held[0]!.socket;
  const gone = new Promise((resolve) => first.once('close', resolve));
  first.end();
  await gone;
  // Its place is free once the server has seen it close (a few tries at most).
  let next: 'answered' | 'closed' = 'closed';
  for (let tries = 0; tries < 20 && next === 'closed'; tries++) next = await ask(port).outcome;
  expect(next).toBe('answered');
});

it('behind a trusted proxy every connection is the proxy: no limit here', async () => {
  const port = await listening({ maxConnectionsPerAddress: 3, trustProxy: 1 });
  const all = Array.from({ length: 6 }, () => ask(port));
  for (const c of all) expect(await c.outcome).toBe('answered');
});

it('MAX_CONNECTIONS_PER_ADDRESS: 64 by default, 0 for none, refused when not a count', () => {
  expect(loadConfig({}).maxConnectionsPerAddress).toBe(64);
  expect(loadConfig({ MAX_CONNECTIONS_PER_ADDRESS: '0' }).maxConnectionsPerAddress).toBe(0);
  expect(() => loadConfig({ MAX_CONNECTIONS_PER_ADDRESS: 'many' })).toThrow(/MAX_CONNECTIONS_PER_ADDRESS/);
});

// Keys rather than a listener on '::': a machine without IPv6 (many containers) could not run that.
// ::1 counted by its /64 ('::') was no loopback address, so a local proxy over IPv6 was one client.
it('counted by address: IPv4-mapped IPv6 as its IPv4 address, IPv6 by its /64, loopback only when asked', () => {
  expect(connectionKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
  expect(connectionKey('203.0.113.7')).toBe('203.0.113.7');
  expect(connectionKey('2001:db8:1:2::a')).toBe(connectionKey('2001:db8:1:2:ffff::b'));
  expect(connectionKey('2001:db8:1:2::a')).not.toBe(connectionKey('2001:db8:1:3::a'));
  for (const local of ['::1', '127.0.0.1', '127.8.9.10', '::ffff:127.0.0.1']) {
    expect(connectionKey(local)).toBeUndefined();
    expect(connectionKey(local, true)).toBeDefined();
  }
  expect(connectionKey('')).toBeUndefined();
});
