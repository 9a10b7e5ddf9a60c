import helmet, { type FastifyHelmetOptions } from '@fastify/helmet';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { OutgoingHttpHeaders } from 'node:http';
import { isApiRequest } from './route-table';

/**
 * Helmet's security headers, worked out ONCE at start and then set on every response.
 *
 * @fastify/helmet calls `helmet(options)` on every request, which validates and serialises the
 * CSP directives again each time (a few % of the server's CPU per request under load). The
 * options never change at run time, so the headers are the same for every response: they are
 * captured from helmet itself (a throwaway instance answering one injected request), so helmet
 * stays the source of truth for which headers and values are sent.
 */
export async function helmetHeaders(options: FastifyHelmetOptions): Promise<OutgoingHttpHeaders> {
  const probe = Fastify({ logger: false });
  let captured: OutgoingHttpHeaders = {};
  try {
    await probe.register(helmet, options);
    // Inside the handler the raw response holds exactly what helmet's onRequest hook set.
    probe.get('/', async (_request, reply) => {
      captured = { ...reply.raw.getHeaders() };
      return '';
    });
    await probe.inject({ method: 'GET', url: '/' });
  } finally {
    await probe.close();
  }
  if (!captured['content-security-policy']) throw new Error('helmet set no Content-Security-Policy');
  return captured;
}

/**
 * API answers are one account's data: no cache may store them (a shared proxy or CDN would hand
 * them to the next person asking) unless the route says otherwise (content-named images,
 * ETag-revalidated pages: all `private`).
 */
export const API_CACHE_CONTROL = 'private, no-store';

/** Sets a response's security headers and, on an API answer, its cache policy. */
export type SecurityHeaders = (request: FastifyRequest, reply: FastifyReply) => void;

/**
 * Sets the precomputed headers as helmet would (on the raw response, so a route's own header wins),
 * and returns the setter for answers that run no hook (the router's own refusals, app.ts).
 */
export async function registerSecurityHeaders(
  app: FastifyInstance,
  options: FastifyHelmetOptions,
): Promise<SecurityHeaders> {
  const entries = Object.entries(await helmetHeaders(options)).filter(
    (e): e is [string, string | number | string[]] => e[1] !== undefined,
  );
  const set: SecurityHeaders = (request, reply) => {
    for (const [name, value] of entries) reply.raw.setHeader(name, value);
    if (isApiRequest(request)) reply.raw.setHeader('Cache-Control', API_CACHE_CONTROL);
  };
  app.addHook('onRequest', (request, reply, done) => {
    set(request, reply);
    done();
  });
  return set;
}
