import type { FastifyInstance } from 'fastify';
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
import { clearSessionCookie, userOf, setSessionCookie } from '../../http/session';
import { createAuthRepository, type UserRow } from './auth.repository';
import { createAuthService } from './auth.service';
import { createSmtpMailer, type Mailer } from './mailer';
import { purgeExpiredSessions, startSessionPurge } from './session-purge';

const toUser = (u: Pick<UserRow, 'id' | 'email' | 'firstName' | 'lastName' | 'createdAt'>) => ({
  id: u.id,
  email: u.email,
  firstName: u.firstName,
  lastName: u.lastName,
  createdAt: u.createdAt.toISOString(),
});

/** Headers only a proxy in front of the server adds (a browser sends none of them). */
const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-real-ip'];
const cameThroughProxy = (headers: Record<string, unknown>) => FORWARDING_HEADERS.some((h) => headers[h] !== undefined);

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
  });
  // Reset mail still on its way is finished before the database closes.
  ctx.onClose.push(() => service.drain());
  if (ctx.config.startWorkers) {
    let purge: ReturnType<typeof startSessionPurge> | undefined;
    app.addHook('onReady', async () => {
      purge = startSessionPurge({ purge: (now) => purgeExpiredSessions(repo, now), now: ctx.now, log: app.log });
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
      setSessionCookie(request, reply, token, expiresAt);
      return reply.status(201).send({ user: toUser(user) });
    },
  );

  r.post(
    '/api/auth/login',
    { schema: { body: loginBody, response: { 200: userResponse } } },
    async (request, reply) => {
      const { email, password, timeZone } = request.body;
      const { user, token, expiresAt } = await service.login(email, password, timeZone);
      // A fresh token at every login: a session id planted before sign-in is never promoted.
      if (request.sessionUser) await service.logout(request.sessionUser.sessionId);
      setSessionCookie(request, reply, token, expiresAt);
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
    async (request) => service.forgotPassword(request.body.email, cameThroughProxy(request.headers)),
  );

  r.post(
    '/api/auth/reset-password',
    { schema: { body: resetPasswordBody, response: { 200: messageResponse } } },
    async (request) => service.resetPassword(request.body.token, request.body.password),
  );
}
