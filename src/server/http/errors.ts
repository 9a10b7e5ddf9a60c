import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { BlobStoreUnavailable } from '../storage/blob-store';
import { API_CACHE_CONTROL } from './security-headers';
import type { PageHandler } from './web-pages';

/** Services throw these; the one error handler below turns them into HTTP answers. */
export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly code = 'error',
    /** Sent as Retry-After: a temporary refusal that the same request may pass later. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}
export const badRequest = (message: string) => new AppError(400, message, 'bad_request');
export const unauthorized = (message = 'Please sign in to continue.') => new AppError(401, message, 'unauthorized');
export const forbidden = (message: string) => new AppError(403, message, 'forbidden');
export const notFound = (message = 'Not found.') => new AppError(404, message, 'not_found');
export const conflict = (message: string) => new AppError(409, message, 'conflict');
export const tooMany = (message: string) => new AppError(429, message, 'rate_limited');
export const unavailable = (message: string) => new AppError(503, message, 'unavailable');
/**
 * A wait for the caller's turn ran out (another request of the same account held it): 503 and
 * Retry-After, not 409, as nothing in the request conflicts with anything stored; `busy` tells it
 * apart from a service that is not there (`unavailable`).
 */
export const busy = (message: string, retryAfterSeconds: number) =>
  new AppError(503, message, 'busy', retryAfterSeconds);

/** A photo file the store could not give or take (`BlobStoreUnavailable`): said as a 503's message. */
export const STORE_UNAVAILABLE_MESSAGE = 'The photo store is temporarily unavailable. Please try again shortly.';

const DOWN_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up / shutting down)
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '53300', // too_many_connections
  '57014', // query_canceled: a statement past statement_timeout (db/client.ts DB_QUERY_TIMEOUT_MS)
]);
/**
 * node-postgres reports a lost connection, a full pool or a statement the server never answered
 * (query_timeout) without a code.
 */
const DOWN_MESSAGES =
  /Connection terminated|connection error and is not queryable|timeout exceeded when trying to connect|Client was closed and is not queryable|Query read timeout/;

/**
 * Errors from the database driver when the server is unreachable: answer 503, not 500. Drizzle
 * wraps driver errors (DrizzleQueryError) with the driver's error as `cause`, so the chain is walked.
 */
export function isDatabaseDown(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && DOWN_CODES.has(code)) return true;
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && DOWN_MESSAGES.test(message)) return true;
    if (e instanceof AggregateError && e.errors.some((x) => isDatabaseDown(x))) return true;
  }
  return false;
}

export function registerErrorHandler(app: FastifyInstance) {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    // A route may have set its answer's cache lifetime and tag before it failed (an image URL
    // names its content: a year, immutable). Left on the error, a browser kept a 503 of a store
    // failing for a moment as that photo for a year, and a revalidation with the tag got a 304.
    reply.removeHeader('etag');
    reply.header('cache-control', API_CACHE_CONTROL);
    if (err instanceof AppError) {
      if (err.retryAfterSeconds !== undefined) reply.header('Retry-After', String(err.retryAfterSeconds));
      return reply.status(err.statusCode).send({ message: err.message, code: err.code });
    }
    if (hasZodFastifySchemaValidationErrors(err)) {
      const first = err.validation[0];
      const field = first?.instancePath?.replace(/^\//, '').replace(/\//g, '.');
      const detail = first?.message ?? 'Invalid request';
      return reply.status(400).send({
        message: field ? `${field}: ${detail}` : detail,
        code: 'validation',
      });
    }
    // Before the database's check: an unreachable store's errors carry the same socket codes.
    if (err instanceof BlobStoreUnavailable) {
      request.log.warn({ err }, 'photo store unavailable');
      return reply.status(503).send({ message: STORE_UNAVAILABLE_MESSAGE, code: 'unavailable' });
    }
    if (isDatabaseDown(err)) {
      request.log.warn({ err }, 'database unavailable');
      return reply
        .status(503)
        .send({ message: 'The service is temporarily unavailable. Please try again shortly.', code: 'unavailable' });
    }
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      // Fastify's own 4xx (malformed JSON, body too large, wrong content type) carry safe messages.
      const message =
        err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError
          ? 'The request body is not valid JSON.'
          : err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
            ? unsupportedMediaMessage(request)
            : err.message;
      return reply.status(status).send({ message, code: err.code ?? 'bad_request' });
    }
    request.log.error({ err }, 'unhandled error');
    return reply.status(500).send({ message: 'Something went wrong on our side.', code: 'internal' });
  });
}

export const SEND_JSON_MESSAGE = 'Send JSON (Content-Type: application/json).';
export const SEND_PHOTOS_MESSAGE = 'Send photos as multipart/form-data in fields named "photos".';

/**
 * Fastify's 415 says only 'Unsupported Media Type', which tells a client nothing it can change. The
 * upload is the one route in @fastify/multipart's scope (photos.routes.ts), the only one where the
 * plugin decorates requests with `isMultipart`; every other body is JSON.
 */
function unsupportedMediaMessage(request: FastifyRequest): string {
  return 'isMultipart' in request ? SEND_PHOTOS_MESSAGE : SEND_JSON_MESSAGE;
}

/** Enough of an unknown path to recognise it: the whole of one (up to the URL limit) bloated every 404. */
const ECHOED_PATH_CHARS = 200;

export const BAD_URL_MESSAGE = 'The request address is not valid: it holds an escape (%) that does not decode.';
export const LONG_PATH_MESSAGE = 'The request address is too long.';

/**
 * The router's own refusals, which Fastify answers before any hook runs: a path whose escapes do not
 * decode (400) and a path parameter past its length limit (414). Left to Fastify they went out in its
 * format (`{error, code, message, statusCode}`, the message repeating the whole path) and without the
 * security headers or the cache policy, which hooks set; `setHeaders` is those hooks' setter.
 */
export function answerRouterError(
  err: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
  setHeaders: ((request: FastifyRequest, reply: FastifyReply) => void) | undefined,
) {
  setHeaders?.(request, reply);
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH')
    return reply.status(414).send({ message: LONG_PATH_MESSAGE, code: 'uri_too_long' });
  if (err.code === 'FST_ERR_BAD_URL') return reply.status(400).send({ message: BAD_URL_MESSAGE, code: 'bad_url' });
  request.log.error({ err }, 'router error');
  return reply.status(500).send({ message: 'Something went wrong on our side.', code: 'internal' });
}

/**
 * Unknown API paths answer JSON 404; with a built client, other GETs load the single page
 * (web-pages.ts: the page for that path, with its screen's hints).
 */
export function registerNotFound(app: FastifyInstance, opts: { page: PageHandler | null }) {
  app.setNotFoundHandler((request, reply) => {
    if (opts.page && request.method === 'GET' && !request.url.startsWith('/api/')) {
      return opts.page(request, reply);
    }
    const path = request.url.split('?')[0] ?? '';
    const shown = path.length > ECHOED_PATH_CHARS ? `${path.slice(0, ECHOED_PATH_CHARS)}…` : path;
    return reply.status(404).send({ message: `No route for ${request.method} ${shown}`, code: 'not_found' });
  });
}
