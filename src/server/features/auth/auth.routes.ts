import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  forgotPasswordBody,
  forgotPasswordResponse,
  loginBody,
  messageResponse,
  registerBody,
  resetPasswordBody,
  userResponse,
} from '@contract/auth';
import type { AppContext } from '../../context';
import { isLoopbackHost } from '../../config';
import { clearSessionCookie, isHttpsRequest, userOf, setSessionCookie } from '../../http/session';
import { createAuthRepository, type UserRow } from './auth.repository';
import { AccountLimitError, createAuthService } from './auth.service';
import { createSmtpMailer, type Mailer } from './mailer';
import { purgeExpiredSessions, purgeSpentAuthRecords, startSessionPurge } from './session-purge';
import { DEVICE_COOKIE, DEVICE_COOKIE_PATH, DEVICE_DAYS } from './sign-in-limit';

/** The browser's device cookie (sign-in-limit.ts): httpOnly, sent to the auth routes only. */
function setDeviceCookie(request: FastifyRequest, reply: FastifyReply, device: string | undefined) {
  if (!device) return;
  reply.setCookie(DEVICE_COOKIE, device, {
    path: DEVICE_COOKIE_PATH,
    httpOnly: true,
    sameSite: 'lax',
    secure: isHttpsRequest(request),
    maxAge: DEVICE_DAYS * 86_400,
  });
}
const deviceOf = (request: FastifyRequest): string | undefined => request.cookies[DEVICE_COOKIE] || undefined;

const toUser = (u: Pick<UserRow, 'id' | 'email' | 'firstName' | 'lastName' | 'createdAt'>) => ({
  id: u.id,
  email: u.email,
  firstName: u.firstName,
  lastName: u.lastName,
  createdAt: u.createdAt.toISOString(),
});

/** Headers only a proxy in front of the server adds (a browser sends none of them). */
const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-real-ip'];

/** The name in a Host header, without its port: '[::1]:5173' -> '::1', 'LocalHost:80' -> 'localhost'. */
export function hostNameOf(host: string | undefined): string {
  const h = (host ?? '').trim().toLowerCase();
  const v6 = /^\[([^\]]*)\]/.exec(h);
  return v6 ? v6[1]! : h.replace(/:\d*$/, '');
}

/**
 * A browser on this machine asked: no proxy's forwarding header, and a Host naming this machine.
 * The Host matters because of DNS rebinding: a page on attacker.example can point its own name at
 * 127.0.0.1 and post from there; the request then reaches the loopback server with no forwarding
 * header and a matching Origin, but its Host is still the attacker's name. `*.localhost` names
 * never leave the machine (RFC 6761: browsers answer them with loopback themselves).
 */
export function fromThisMachine(request: FastifyRequest): boolean {
  if (FORWARDING_HEADERS.some((h) => request.headers[h] !== undefined)) return false;
  // Browsers speak HTTP/1.1 or later; nginx's proxy_pass speaks 1.0 upstream by default, and with
  // its default headers (no X-Forwarded-For, Host the upstream's 127.0.0.1:port) every internet
  // request it passed on would otherwise look local and get any account's reset token.
  if (request.raw.httpVersion === '1.0') return false;
  const name = hostNameOf(request.headers.host);
  return isLoopbackHost(name) || name.endsWith('.localhost');
}

export interface AuthRoutesOptions {
  /** Tests capture reset mail here instead of an SMTP server. */
  mailer?: Mailer;
}

export async function authRoutes(app: FastifyInstance, ctx: AppContext, opts: AuthRoutesOptions = {}) {
  const repo = createAuthRepository(ctx.db);
  const service = createAuthService({
    repo,
    config: ctx.config,
    mailer: opts.mailer ?? (ctx.config.smtpUrl ? createSmtpMailer(ctx.config.smtpUrl, ctx.config.mailFrom) : undefined),
    onUserCreated: ctx.onUserCreated,
    log: app.log,
    sessionCache: app.sessionEnds,
    rewardsNow: ctx.now,
    limitNow: ctx.testNow,
  });
  // Reset mail still on its way is finished before the database closes.
  ctx.onClose.push(() => service.drain());
  if (ctx.config.startWorkers) {
    let purge: ReturnType<typeof startSessionPurge> | undefined;
    app.addHook('onReady', async () => {
      purge = startSessionPurge({
        purge: async (now) => {
          // Drained failure buckets, long-unused browsers and expired reset tokens go with the expired sessions.
          await purgeSpentAuthRecords(repo, ctx.testNow ? now : undefined);
          return purgeExpiredSessions(repo, now);
        },
        now: ctx.now,
        log: app.log,
      });
    });
    ctx.onClose.push(async () => purge?.stop());
  }
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get('/api/auth/user', { schema: { response: { 200: userResponse } } }, async (request) => ({
    user: toUser(userOf(request)),
  }));

  r.post(
    '/api/auth/register',
    { schema: { body: registerBody, response: { 201: userResponse } } },
    async (request, reply) => {
      const { user, token, expiresAt } = await service.register(request.body);
      // The cookie replaced below belonged to a session nobody could end any more (no browser
      // holds it to sign out with), left open for its 30 days: it ends here, as at a sign-in.
      if (request.sessionUser) await service.logout(request.sessionUser.sessionId);
      setSessionCookie(request, reply, token, expiresAt);
      // After the session's: scripts and tests that keep the first Set-Cookie keep the session.
      setDeviceCookie(request, reply, await service.trustBrowser(user.id, user.passwordHash, undefined, false));
      return reply.status(201).send({ user: toUser(user) });
    },
  );

  r.post(
    '/api/auth/login',
    { schema: { body: loginBody, response: { 200: userResponse } } },
    async (request, reply) => {
      const { email, password, timeZone } = request.body;
      const signedIn = await service.login(email, password, timeZone, deviceOf(request)).catch((err: unknown) => {
        if (err instanceof AccountLimitError) reply.header('Retry-After', String(err.retryAfterSeconds));
        throw err;
      });
      const { user, token, expiresAt, device } = signedIn;
      // A fresh token at every login: a session id planted before sign-in is never promoted.
      if (request.sessionUser) await service.logout(request.sessionUser.sessionId);
      setSessionCookie(request, reply, token, expiresAt);
      setDeviceCookie(request, reply, device);
      return { user: toUser(user) };
    },
  );

  r.post('/api/auth/logout', { schema: { response: { 200: messageResponse } } }, async (request, reply) => {
    if (request.sessionUser) await service.logout(request.sessionUser.sessionId);
    clearSessionCookie(request, reply);
    return { message: 'Signed out' };
  });

  r.post(
    '/api/auth/forgot-password',
    { schema: { body: forgotPasswordBody, response: { 200: forgotPasswordResponse } } },
    async (request) => service.forgotPassword(request.body.email, fromThisMachine(request)),
  );

  r.post(
    '/api/auth/reset-password',
    { schema: { body: resetPasswordBody, response: { 200: messageResponse } } },
    async (request, reply) => {
      const { message, device } = await service.resetPassword(request.body.token, request.body.password);
      setDeviceCookie(request, reply, device);
      return { message };
    },
  );
}
