import { SIGNED_OUT_COOKIE } from '@contract/auth-values';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context';
import { hashToken } from '../lib/tokens';
import { unauthorized } from './errors';
import { isApiRequest, isPublicRoute } from './route-table';
import { SessionCache } from './session-cache';
import { localSessionEnds, postgresSessionEnds, type SessionEnds } from './session-events';
import { createSessionLookup } from './session.repository';

/** The session cookie's name over plain HTTP (and, from before the prefix, over HTTPS). */
export const SESSION_COOKIE = 'eyevu_session';
/**
 * Its name over HTTPS. A browser keeps a `__Host-` cookie only when it is Secure, for path `/`,
 * with no Domain, set by the host itself: a sibling subdomain (`Domain=` the parent) can neither
 * set nor replace it, so cannot plant its own account's session in this app's browsers.
 */
export const HOST_SESSION_COOKIE = '__Host-eyevu_session';
export const SESSION_DAYS = 30;
/**
 * How long a resolved session is reused without a query. Other processes' logouts arrive as events
 * (session-events.ts); this only bounds what an event lost with its connection could leave.
 */
export const SESSION_CACHE_MS = 5_000;
const SESSION_CACHE_MAX = 10_000;

export interface SessionUser {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
  createdAt: Date;
  sessionId: string;
}

/** Shared by every request the cached session answers: frozen, so no request can change another's. */
type CachedUser = Readonly<SessionUser>;

declare module 'fastify' {
  interface FastifyRequest {
    sessionUser: Readonly<SessionUser> | null;
  }
  interface FastifyInstance {
    /** Resolved sessions of this process; logout and password reset evict from it. */
    sessionCache: SessionCache<CachedUser>;
    /** Ends sessions in this process's cache and, on PostgreSQL, in every other process's. */
    sessionEnds: SessionEnds;
  }
}

/**
 * The signed-in user of a request to a private route. The auth gate (registerAuthGate) already
 * refused the request without one, so the throw only guards a route wrongly listed as public.
 */
export function userOf(request: FastifyRequest): SessionUser {
  if (!request.sessionUser) throw unauthorized();
  return request.sessionUser;
}

/**
 * Whether the browser's request was HTTPS: request.protocol (X-Forwarded-Proto from a trusted
 * proxy), or a forwarding header from any hop. Trusting the header here is safe: a spoofed
 * https only makes the spoofer's own cookie Secure, which their plain-HTTP browser then drops.
 */
export function isHttpsRequest(request: FastifyRequest): boolean {
  if (request.protocol === 'https') return true;
  const proto = request.headers['x-forwarded-proto'];
  const first = (Array.isArray(proto) ? proto[0] : proto)?.split(',')[0]?.trim().toLowerCase();
  if (first === 'https') return true;
  const forwarded = request.headers.forwarded;
  const firstHop = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0] ?? '';
  return /(?:^|;)\s*proto\s*=\s*"?https"?\s*(?:;|$)/i.test(firstHop);
}

function cookieOptions(request: FastifyRequest) {
  return { path: '/', httpOnly: true, sameSite: 'lax' as const, secure: isHttpsRequest(request) };
}

/**
 * The request's session token: the prefixed cookie's first. Sessions made over HTTPS before the
 * prefix (30 days at most) still arrive under the plain name, and keep working.
 */
export function sessionTokenOf(request: FastifyRequest): string | undefined {
  return request.cookies[HOST_SESSION_COOKIE] || request.cookies[SESSION_COOKIE] || undefined;
}

/** The prefix needs Secure, which a browser on plain HTTP (the local demo) would not keep. */
const sessionCookieName = (request: FastifyRequest) => (isHttpsRequest(request) ? HOST_SESSION_COOKIE : SESSION_COOKIE);

/** Over HTTPS, the plain-named cookie the browser still sends (from before the prefix) goes. */
function clearPlainSessionCookie(request: FastifyRequest, reply: FastifyReply) {
  if (isHttpsRequest(request) && request.cookies[SESSION_COOKIE] !== undefined) {
    reply.clearCookie(SESSION_COOKIE, cookieOptions(request));
  }
}

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string, expires: Date) {
  reply.setCookie(sessionCookieName(request), token, { ...cookieOptions(request), expires });
  clearPlainSessionCookie(request, reply);
  clearSignedOutMark(request, reply, true);
}

/** Cleared with the attributes it was set with, or a browser keeps a Secure cookie. */
export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply) {
  reply.clearCookie(sessionCookieName(request), cookieOptions(request));
  clearPlainSessionCookie(request, reply);
  markSignedOut(request, reply);
}

/** The signed-out mark (contract/auth-values.ts): read by the app's script, so not httpOnly. */
const markOptions = (request: FastifyRequest) => ({ ...cookieOptions(request), httpOnly: false });

/** Tells the app this browser has no session, so it stops asking who is signed in (no 401s). */
export function markSignedOut(request: FastifyRequest, reply: FastifyReply) {
  if (request.cookies[SIGNED_OUT_COOKIE] === '1') return;
  reply.setCookie(SIGNED_OUT_COOKIE, '1', { ...markOptions(request), maxAge: SESSION_DAYS * 86_400 });
}

/** Drops the mark when the browser has a session again; `always` at sign-in, whatever was sent. */
export function clearSignedOutMark(request: FastifyRequest, reply: FastifyReply, always = false) {
  if (always || request.cookies[SIGNED_OUT_COOKIE] !== undefined)
    reply.clearCookie(SIGNED_OUT_COOKIE, markOptions(request));
}

const AUTH_CHECK_ROUTE = '/api/auth/user';

/** A request whose matched route is one of /api/auth/* (whatever the spelling of its path). */
function isAuthRoute(request: FastifyRequest): boolean {
  return request.routeOptions.url?.startsWith('/api/auth/') ?? false;
}

/**
 * Resolves the session cookie on API requests only; static files need no database round trip.
 * A found session is reused for SESSION_CACHE_MS (session-cache.ts), so most requests skip the query;
 * the auth routes always read it from the database (authoritative sign-in state).
 */
export function registerSessionLookup(app: FastifyInstance, ctx: AppContext) {
  const cache = new SessionCache<CachedUser>({ ttlMs: SESSION_CACHE_MS, maxEntries: SESSION_CACHE_MAX });
  app.decorate('sessionCache', cache);
  const ends =
    ctx.database.kind === 'postgres' && ctx.config.databaseUrl
      ? postgresSessionEnds({ notifications: ctx.database.notifications, db: ctx.db, cache, log: app.log })
      : localSessionEnds(cache);
  app.decorate('sessionEnds', ends);
  ctx.onClose.push(() => ends.close());
  app.decorateRequest('sessionUser', null);
  const findSession = createSessionLookup(ctx.db);
  /** Every later line of this request (including 'request completed') names the user. */
  const signIn = (request: FastifyRequest, reply: FastifyReply, user: CachedUser) => {
    request.sessionUser = user;
    // The request's own logger (made for this request, shared with its reply) takes the binding:
    // a second child logger per request cost ~4 % of a cached page's CPU. A disabled logger has
    // no setBindings.
    const log = request.log as typeof request.log & { setBindings?: (bindings: object) => void };
    if (log.setBindings) {
      log.setBindings({ userId: user.id });
    } else {
      request.log = log.child({ userId: user.id });
      reply.log = request.log;
    }
  };
  // Callback style: a session found in the cache costs no promise and no wait for the next tick.
  app.addHook('onRequest', (request, reply, done) => {
    if (!isApiRequest(request)) return done();
    const token = sessionTokenOf(request);
    if (!token) return done();
    const id = hashToken(token);
    // /api/auth/* (the client's "who am I" at app load, login, logout) always asks the database.
    // Decided by the route matched, as the gate is: the router decodes escapes, so '/%61pi/auth/user'
    // runs that route too and must not be answered from the cache.
    const cached = isAuthRoute(request) ? undefined : cache.get(id)?.user;
    if (cached) {
      signIn(request, reply, cached);
      return done();
    }
    const startedAt = cache.begin();
    findSession(id, new Date())
      .then((row) => {
        if (!row) return;
        const { expiresAt, ...found } = row;
        const user: CachedUser = Object.freeze({ ...found, sessionId: id });
        cache.set(id, { user, userId: user.id, sessionExpiresAt: expiresAt.getTime() }, startedAt);
        signIn(request, reply, user);
      })
      .then(
        () => done(),
        (err: Error) => done(err),
      );
  });
}

/**
 * Deny by default: an /api request without a session answers 401 before validation, limits or its
 * handler, unless its route is in PUBLIC_ROUTES (route-table.ts). Register after the session lookup.
 * Paths without a route fall through to the JSON 404; non-API paths (the client, /healthz) are never gated.
 */
export function registerAuthGate(app: FastifyInstance) {
  app.addHook('onRequest', (request, reply, done) => {
    if (request.sessionUser || !isApiRequest(request)) return done();
    const route = request.routeOptions.url;
    if (route === undefined || isPublicRoute(request.method, route)) return done();
    // The app's "who am I" found no session (none sent, or one ended elsewhere): it stops asking.
    if (route === AUTH_CHECK_ROUTE) markSignedOut(request, reply);
    done(unauthorized());
  });
}

/**
 * SameSite=Lax already keeps the cookie off cross-site POSTs; refusing a foreign Origin on unsafe
 * methods closes the gap for older browsers and same-site subdomains.
 */
export function registerOriginCheck(app: FastifyInstance) {
  // Callback style: the reads it lets through (every GET) cost no promise and no extra tick.
  app.addHook('onRequest', (request, reply, done) => {
    const method = request.method;
    if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return done();
    if (request.url.startsWith('/api/stripe/webhook')) return done();
    const origin = request.headers.origin;
    if (!origin) return done();
    // request.host honours X-Forwarded-Host behind a trusted proxy; URL() drops default ports on both sides.
    let host: string;
    let ours: string;
    try {
      host = new URL(origin).host;
      ours = new URL(`${request.protocol}://${request.host}`).host;
    } catch {
      host = '';
      ours = request.host;
    }
    if (!host || host !== ours) {
      reply.status(403).send({ message: 'Cross-site requests are not allowed.', code: 'forbidden' });
      return;
    }
    done();
  });
}
