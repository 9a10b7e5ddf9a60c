import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import net from 'node:net';
import sharp from 'sharp';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../app';
import { blobConsistency, countOf } from '../hardening/support';
import { createTestDatabase, signUp, testConfig, type TestDatabase } from '../test/harness';
import { photoUpload } from '../test/multipart';
import { closeWithin } from './closing';

/**
 * The server shutting down (SIGTERM: main.ts calls `closeWithin`) with requests in flight, on a
 * listening server and raw sockets, as a deploy meets it.
 */
let app: FastifyInstance | undefined;
let database: TestDatabase | undefined;
let cleanup: (() => void) | undefined;
afterEach(async () => {
  await app?.close().catch(() => undefined);
  await database?.destroy();
  cleanup?.();
  app = database = cleanup = undefined;
});

async function listening() {
  database = await createTestDatabase();
  const config = testConfig();
  cleanup = config.cleanup;
  app = await buildApp(config, { database });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, config, database, port: (app.server.address() as net.AddressInfo).port };
}

/** A connection that has sent `head`; `received` is everything the server wrote until it closed. */
function connection(port: number, head: string | Buffer) {
  const socket = net.connect(port, '127.0.0.1');
  let data = '';
  socket.on('data', (chunk) => (data += chunk.toString('latin1')));
  socket.on('error', () => undefined);
  const received = new Promise<string>((resolve) => socket.on('close', () => resolve(data)));
  socket.write(head);
  return { socket, received, data: () => data };
}

/** Resolves once the server has stopped accepting (the close has begun). */
async function stoppedAccepting(server: net.Server) {
  while (server.listening) await new Promise((resolve) => setImmediate(resolve));
}

describe('shutting down with requests in flight', () => {
  it('a request in flight is answered, with Connection: close, and its connection closed so the close ends', async () => {
    const { app, port } = await listening();
    const { cookie } = await signUp(app);
    const body = JSON.stringify({ app: 'YouTube' });
    const c = connection(
      port,
      `POST /api/ad-breaks HTTP/1.1\r\nHost: localhost\r\nCookie: ${cookie}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
    );
    // The request is in: its session looked up, its body still arriving.
    await vi.waitFor(() => expect(app.ctx.activity.quiet()).toBe(false));
    const closed = closeWithin(app, { after: () => () => undefined });
    await stoppedAccepting(app.server);
    // No new connection is taken.
    const refused = await new Promise<string>((resolve) => {
      const other = net.connect(port, '127.0.0.1');
      other.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
      other.on('connect', () => resolve('connected'));
    });
    expect(refused).toBe('ECONNREFUSED');
    c.socket.write(body.slice(5));
    const answer = await c.received;
    expect(answer).toMatch(/^HTTP\/1\.1 201 /);
    // Kept alive (Keep-Alive: timeout=30), the connection held the close for 30 s after its answer.
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    await closed;
  });

  it('an upload still arriving when the grace runs out is cut: the close ends, what it stored is whole, nothing staged is left', async () => {
    const { app, config, database, port } = await listening();
    const { cookie } = await signUp(app);
    const [first, second] = await Promise.all(
      [10, 20].map((seed) =>
        sharp({ create: { width: 640, height: 480, channels: 3, background: { r: seed, g: 80, b: 140 } } })
          .jpeg()
          .toBuffer(),
      ),
    );
    const upload = photoUpload([
      { name: 'first.jpg', bytes: first! },
      { name: 'second.jpg', bytes: second! },
    ]);
    // Everything but the second photo's last half: a client on a link that all but stalled.
    const sent = upload.payload.subarray(0, upload.payload.length - Math.floor(second!.length / 2));
    const c = connection(
      port,
      Buffer.concat([
        Buffer.from(
          `POST /api/photos HTTP/1.1\r\nHost: localhost\r\nCookie: ${cookie}\r\n` +
            `Content-Type: ${upload.headers['content-type']}\r\nContent-Length: ${upload.payload.length}\r\n\r\n`,
        ),
        sent,
      ]),
    );
    const ownPhotos = () => countOf(database.db, sql`select count(*)::int n from photos where demo_key is null`);
    await vi.waitFor(async () => expect(await ownPhotos()).toBe(1), { timeout: 30_000 });

    // It goes on trickling a byte at a time: never silent long enough for IDLE_CONNECTION_MS.
    let at = sent.length;
    const trickle = setInterval(() => {
      if (at < upload.payload.length - 1) c.socket.write(upload.payload.subarray(at, ++at));
    }, 200);
    c.socket.on('close', () => clearInterval(trickle));

    let cut: (() => void) | undefined;
    let closeEnded = false;
    const closed = closeWithin(app, { after: (_ms, fire) => ((cut = fire), () => undefined) }).then(
      () => (closeEnded = true),
    );
    await stoppedAccepting(app.server);
    // The stalled upload holds the close (it may take REQUEST_TIMEOUT_MS, 30 minutes)...
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(closeEnded).toBe(false);
    // ...until the grace is over.
    cut!();
    await closed;
    await c.received;
    expect(await ownPhotos()).toBe(1);
    // The second photo's staged copy goes once its stream has failed.
    await vi.waitFor(async () => expect((await blobConsistency(database.db, config.blobDir)).temp).toEqual([]));
    expect((await blobConsistency(database.db, config.blobDir)).missing).toEqual([]);
  });
});
