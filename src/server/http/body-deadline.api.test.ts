import type { FastifyInstance } from 'fastify';
import net from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../app';
import { createTestDatabase, signUp, testConfig, type TestDatabase } from '../test/harness';
import { photoUpload } from '../test/multipart';
import { BODY_DEADLINE_MS, bodyTooSlowMessage } from './body-deadline';

/**
 * Request bodies that trickle in, on a listening server and raw sockets. The deadline's clock is
 * the test's: each armed deadline is kept here and fired by hand, so no test waits out 60 s.
 */
let app: FastifyInstance;
let database: TestDatabase;
let cleanup: () => void;
let port: number;
interface Armed {
  ms: number;
  expire: () => void;
  cancelled: boolean;
}
let armed: Armed[] = [];
const pending = () => armed.filter((d) => !d.cancelled);

beforeAll(async () => {
  database = await createTestDatabase();
  const config = testConfig();
  cleanup = config.cleanup;
  app = await buildApp(config, {
    database,
    bodyDeadline: (ms, expire) => {
      const deadline = { ms, expire, cancelled: false };
      armed.push(deadline);
      return () => (deadline.cancelled = true);
    },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as net.AddressInfo).port;
});
beforeEach(() => {
  armed = [];
});
afterAll(async () => {
  await app?.close();
  await database?.destroy();
  cleanup?.();
});

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

const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as unknown;

describe('a request body that trickles in', () => {
  it('a JSON body still arriving at the deadline is answered 408 in the app format and its connection closed', async () => {
    const body = JSON.stringify({ email: 'slow@example.com', password: 'secret123' });
    const c = connection(
      port,
      `POST /api/auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\n\r\n${body.slice(0, 3)}`,
    );
    await vi.waitFor(() => expect(pending()).toHaveLength(1));
    // A byte now and then: never silent for IDLE_CONNECTION_MS, so only REQUEST_TIMEOUT_MS (30 min) bound it.
    c.socket.write(body.slice(3, 4));
    const [deadline] = pending();
    expect(deadline!.ms).toBe(BODY_DEADLINE_MS);
    deadline!.expire();
    const answer = await c.received;
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(bodyOf(answer)).toEqual({ message: bodyTooSlowMessage(BODY_DEADLINE_MS), code: 'request_timeout' });
    expect(c.socket.destroyed).toBe(true);
  });

  it('a body nobody reads (refused 401 before it came) has its connection closed at the deadline', async () => {
    const c = connection(
      port,
      `POST /api/albums HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
        `Content-Length: 1000\r\n\r\n{"name":"`,
    );
    // Answered at once; Node then goes on discarding the rest of the body as it trickles in.
    await vi.waitFor(() => expect(c.data()).toMatch(/^HTTP\/1\.1 401 /));
    expect(c.socket.destroyed).toBe(false);
    expect(pending()).toHaveLength(1);
    pending()[0]!.expire();
    const answer = await c.received;
    expect(answer).toMatch(/^HTTP\/1\.1 401 /);
    expect(answer).not.toMatch(/ 408 /);
  });

  it('a body that arrives whole in time is not touched by its deadline', async () => {
    const body = JSON.stringify({ email: 'nobody@example.com', password: 'secret123' });
    const c = connection(
      port,
      `POST /api/auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    const answer = await c.received;
    expect(answer).toMatch(/^HTTP\/1\.1 401 /);
    // Set at the request's start, cancelled once the body was whole.
    expect(armed).toHaveLength(1);
    expect(pending()).toHaveLength(0);
  });

  it('a photo upload trickling past the deadline is not cut: it keeps its own, longer limit', async () => {
    const { cookie } = await signUp(app);
    const photo = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 9, g: 80, b: 140 } } })
      .jpeg()
      .toBuffer();
    const upload = photoUpload([{ name: 'slow.jpg', bytes: photo }]);
    const half = Math.floor(upload.payload.length / 2);
    const c = connection(
      port,
      Buffer.concat([
        Buffer.from(
          `POST /api/photos HTTP/1.1\r\nHost: localhost\r\nCookie: ${cookie}\r\nConnection: close\r\n` +
            `Content-Type: ${upload.headers['content-type']}\r\nContent-Length: ${upload.payload.length}\r\n\r\n`,
        ),
        upload.payload.subarray(0, half),
      ]),
    );
    // The upload's handler is reading its parts.
    await vi.waitFor(() => expect(app.ctx.activity.uploads).toBe(1));
    // Every deadline there is runs out now (none was set for the upload).
    for (const d of pending()) d.expire();
    c.socket.write(upload.payload.subarray(half));
    const answer = await c.received;
    expect(answer).toMatch(/^HTTP\/1\.1 201 /);
  });
});
