import type { FastifyInstance } from 'fastify';
import { Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { AppError } from './errors';

/**
 * How long a request body other than a photo upload may take to arrive, from the request's start.
 * Node's own bound is server-wide (REQUEST_TIMEOUT_MS, 30 minutes, sized for 20 photos on a slow
 * link), so a JSON body (at most 1 MB) sent a byte every 59 s (never silent for IDLE_CONNECTION_MS)
 * held its connection for 30 minutes, on any route, signed in or not: a client with many sockets
 * held the server's file descriptors 30 times longer than silence alone lets it. Every body but an
 * upload is a form's worth of JSON (or Stripe's webhook), sent in well under a second.
 */
export const BODY_DEADLINE_MS = 60_000;

/** The routes whose multipart bodies keep Node's longer bound (REQUEST_TIMEOUT_MS). */
export const UPLOAD_ROUTES: ReadonlySet<string> = new Set(['POST /api/photos']);

export const bodyTooSlowMessage = (ms: number) =>
  `The request took too long to arrive: its body must be sent within ${Math.round(ms / 1000)} seconds.`;

/** Runs `expire` after `ms`; answers a cancel. Tests fire it themselves. */
export type After = (ms: number, expire: () => void) => () => void;

const realAfter: After = (ms, expire) => {
  const timer = setTimeout(expire, ms);
  timer.unref();
  return () => clearTimeout(timer);
};

/**
 * Gives every request that declares a body (but an upload's multipart one) BODY_DEADLINE_MS to
 * send all of it. Past that, a body Fastify is reading is failed with a 408 in the app's error
 * format (Fastify then answers `Connection: close`); a body nobody reads (an early 401, a 415, a
 * GET's), which Node would go on discarding after the answer, has its connection cut once the answer
 * is out. Registered before the other hooks, so the clock starts before any of them can answer.
 */
export function registerBodyDeadline(app: FastifyInstance, opts: { ms?: number; after?: After } = {}): void {
  const ms = opts.ms ?? BODY_DEADLINE_MS;
  const after = opts.after ?? realAfter;
  const bodies = new WeakMap<object, { stream?: PassThrough; expired: boolean }>();

  app.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw;
    const { headers } = raw;
    const declaresBody = headers['transfer-encoding'] !== undefined || Number(headers['content-length']) > 0;
    const upload =
      UPLOAD_ROUTES.has(`${request.method} ${request.routeOptions.url}`) &&
      /^multipart\/form-data\b/i.test(headers['content-type'] ?? '');
    // An injected request (app.inject: the painted pages' own reads, tests) holds its body in memory.
    if (!declaresBody || upload || raw.complete || !(raw.socket instanceof Socket)) {
      done();
      return;
    }
    const body: { stream?: PassThrough; expired: boolean } = { expired: false };
    bodies.set(request, body);
    const socket = raw.socket;
    const cancel = after(ms, () => {
      if (raw.complete || socket.destroyed) return;
      body.expired = true;
      const cut = () => socket.destroy();
      if (reply.raw.writableFinished) {
        cut();
        return;
      }
      reply.raw.once('finish', cut);
      // An answer already under way (a handler that did not wait for the body) is let finish.
      if (reply.raw.headersSent) return;
      const err = new AppError(408, bodyTooSlowMessage(ms), 'request_timeout');
      if (body.stream?.readableFlowing) {
        // Failed under the parser reading it: Fastify answers the error, `Connection: close`.
        raw.unpipe(body.stream);
        body.stream.destroy(err);
      } else {
        // Still in the hooks, or read by no parser (a GET's body, one read from the request itself).
        reply.header('connection', 'close').send(err);
      }
    });
    raw.once('end', cancel);
    raw.once('close', cancel);
    done();
  });

  // The body as the parsers read it, through a stream the deadline can fail: failing the request
  // itself would destroy its socket, and the 408 with it.
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const body = bodies.get(request);
    if (!body || body.expired) {
      done(null, payload);
      return;
    }
    const stream = new PassThrough();
    // Read by no parser (a GET's body), a failed stream must not throw.
    stream.on('error', () => undefined);
    body.stream = stream;
    payload.pipe(stream);
    // A client gone mid-body ends the parser's wait, as it did reading the request itself.
    request.raw.once('close', () => {
      if (!request.raw.complete) stream.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
    });
    done(null, stream);
  });
}
