import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { z } from 'zod';

/**
 * Every route the app registers, collected by an `onRoute` hook installed before any feature
 * registers. The authorisation matrix, the fuzzer and `/api/docs` are generated from it, so a new
 * endpoint is covered (and documented) without anyone listing it.
 */
export interface RouteEntry {
  method: string;
  url: string;
  /** Reachable signed out (see PUBLIC_ROUTES); everything else answers 401 without a session. */
  public: boolean;
  schema?: { body?: unknown; querystring?: unknown; params?: unknown; response?: Record<string, unknown> };
}

/**
 * The only endpoints that answer without a session: the auth gate (http/session.ts) refuses every
 * other /api route with 401 before its handler runs, and the authorisation tests read this list.
 */
export const PUBLIC_ROUTES: ReadonlySet<string> = new Set([
  'GET /healthz',
  'GET /readyz',
  'GET /api/docs',
  'GET /api/config',
  'POST /api/auth/register',
  'POST /api/auth/login',
  'POST /api/auth/logout',
  'POST /api/auth/forgot-password',
  'POST /api/auth/reset-password',
  'POST /api/stripe/webhook',
]);

/** Whether `METHOD /url` (the route's pattern, e.g. '/api/photos/:id') answers signed out; HEAD is its GET. */
export function isPublicRoute(method: string, url: string): boolean {
  return PUBLIC_ROUTES.has(`${method === 'HEAD' ? 'GET' : method} ${url}`);
}

/**
 * Whether a request is for the API. The raw path decides first (no work on the hot path); the
 * router decodes escapes, so a path spelled '/%61pi/...' still runs an '/api/...' route, and the
 * route it matched decides then. The session lookup, the auth gate and the cache policy use this,
 * so no spelling of a path reaches a private handler past them.
 */
export function isApiRequest(request: FastifyRequest): boolean {
  return request.url.startsWith('/api/') || (request.routeOptions.url?.startsWith('/api/') ?? false);
}

declare module 'fastify' {
  interface FastifyInstance {
    routeTable: RouteEntry[];
  }
}

/** Call before any route is registered (child plugins inherit the hook). */
export function collectRoutes(app: FastifyInstance) {
  const table: RouteEntry[] = [];
  app.decorate('routeTable', table);
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      // HEAD twins of GET routes and the static file server are not API endpoints.
      if (method === 'HEAD' || !(route.url.startsWith('/api/') || ['/healthz', '/readyz'].includes(route.url)))
        continue;
      table.push({
        method,
        url: route.url,
        public: isPublicRoute(method, route.url),
        schema: route.schema as RouteEntry['schema'],
      });
    }
  });
}

function jsonSchema(s: unknown, io: 'input' | 'output'): unknown {
  if (s instanceof z.ZodType) {
    try {
      return z.toJSONSchema(s, { io, unrepresentable: 'any', target: 'openapi-3.0' });
    } catch {
      return {};
    }
  }
  return undefined;
}

/** An OpenAPI 3.0 document generated from the route table's zod schemas (the shared contract). */
export function openApiDocument(routes: RouteEntry[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const path = r.url.replace(/:(\w+)/g, '{$1}');
    const parameters: unknown[] = [];
    for (const [where, key] of [
      ['path', 'params'],
      ['query', 'querystring'],
    ] as const) {
      const s = jsonSchema(r.schema?.[key], 'input') as
        { properties?: Record<string, unknown>; required?: string[] } | undefined;
      for (const [name, schema] of Object.entries(s?.properties ?? {})) {
        parameters.push({ name, in: where, required: where === 'path' || !!s?.required?.includes(name), schema });
      }
    }
    const body = jsonSchema(r.schema?.body, 'input');
    const responses: Record<string, unknown> = {};
    for (const [status, s] of Object.entries(r.schema?.response ?? {})) {
      responses[status] = {
        description: `HTTP ${status}`,
        content: { 'application/json': { schema: jsonSchema(s, 'output') ?? {} } },
      };
    }
    if (!Object.keys(responses).length) responses.default = { description: 'See the endpoint' };
    if (!r.public) responses['401'] = { description: 'Not signed in' };
    paths[path] ??= {};
    paths[path][r.method.toLowerCase()] = {
      operationId: `${r.method.toLowerCase()}${path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
      ...(parameters.length ? { parameters } : {}),
      ...(body ? { requestBody: { required: true, content: { 'application/json': { schema: body } } } } : {}),
      responses,
      ...(r.public ? { security: [] } : {}),
    };
  }
  return {
    openapi: '3.0.3',
    info: { title: 'Eyevu API', version: '1.0.0' },
    components: {
      securitySchemes: {
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: 'eyevu_session',
          description: "Over HTTPS the cookie is named '__Host-eyevu_session'.",
        },
      },
    },
    security: [{ session: [] }],
    paths,
  };
}

/** `GET /api/docs`: registered last, so it describes every route above it. */
export function registerDocs(app: FastifyInstance) {
  let doc: ReturnType<typeof openApiDocument> | undefined;
  app.get('/api/docs', async () => (doc ??= openApiDocument(app.routeTable)));
}
