import type { RegisterBody } from '../../../contract/auth.js';
import type { Config } from '../../config.js';
import { SESSION_DAYS } from '../../http/session.js';
import { badRequest, conflict, tooMany, unauthorized } from '../../http/errors.js';
import { RateLimiter } from '../../lib/rate-limiter.js';
import { hashToken, newToken } from '../../lib/tokens.js';
import type { AuthRepository, UserRow } from './auth.repository.js';
import type { Mailer } from './mailer.js';
import { getDummyHash, hashPassword, verifyPassword } from './password.js';

const RESET_TTL_MS = 60 * 60 * 1000;
const INVALID_LOGIN = 'Invalid email or password';
const TOO_MANY = (s: number) => `Too many attempts. Please wait ${Math.ceil(s / 60)} minute(s) and try again.`;
const RESET_SENT = 'If an account exists for that email, a reset link has been sent.';

export const normaliseEmail = (email: string) => email.trim().toLowerCase();

export function createAuthService(deps: {
  repo: AuthRepository;
  config: Config;
  mailer?: Mailer;
  onUserCreated: Array<(u: { id: string; email: string }) => Promise<void>>;
  log: (msg: string, err: unknown) => void;
  /** This process's session cache (http/session.ts): ended sessions are evicted at once. */
  sessionCache: { evict(sessionId: string): void; evictUser(userId: string): void };
  now?: () => Date;
}) {
  const { repo, config } = deps;
  const now = deps.now ?? (() => new Date());
  const rl = config.rateLimits;
  const loginByIp = new RateLimiter(rl.loginPerIp, rl.windowMs);
  const loginByEmail = new RateLimiter(rl.loginPerEmail, rl.windowMs);
  const forgotByEmail = new RateLimiter(rl.forgotPerEmail, rl.windowMs);
  const forgotByIp = new RateLimiter(rl.loginPerIp, rl.windowMs);

  function limit(...checks: Array<[RateLimiter, string]>) {
    for (const [limiter, key] of checks) {
      const r = limiter.hit(key);
      if (!r.allowed) throw tooMany(TOO_MANY(r.retryAfterSeconds));
    }
  }

  async function startSession(userId: string) {
    const token = newToken();
    const expiresAt = new Date(now().getTime() + SESSION_DAYS * 86_400_000);
    await repo.insertSession(hashToken(token), userId, expiresAt);
    return { token, expiresAt };
  }

  return {
    startSession,

    async register(body: RegisterBody): Promise<{ user: UserRow; token: string; expiresAt: Date }> {
      const email = normaliseEmail(body.email);
      const user = await repo.insertUser({
        email,
        firstName: body.firstName,
        lastName: body.lastName,
        passwordHash: await hashPassword(body.password),
      });
      if (!user) throw conflict('An account with this email already exists.');
      for (const hook of deps.onUserCreated) {
        await hook({ id: user.id, email }).catch((err) => deps.log('onUserCreated hook failed', err));
      }
      return { user, ...(await startSession(user.id)) };
    },

    async login(emailRaw: string, password: string, ip: string) {
      const email = normaliseEmail(emailRaw);
      limit([loginByIp, ip], [loginByEmail, email]);
      const user = await repo.findUserByEmail(email);
      const ok = await verifyPassword(password, user?.passwordHash ?? (await getDummyHash()));
      if (!user || !ok) throw unauthorized(INVALID_LOGIN);
      loginByEmail.reset(email);
      return { user, ...(await startSession(user.id)) };
    },

    async logout(sessionId: string) {
      await repo.deleteSession(sessionId);
      deps.sessionCache.evict(sessionId);
    },

    async forgotPassword(emailRaw: string, ip: string): Promise<{ message: string; resetToken?: string }> {
      const email = normaliseEmail(emailRaw);
      limit([forgotByIp, ip], [forgotByEmail, email]);
      const user = await repo.findUserByEmail(email);
      // The same answer for unknown emails, so the form cannot be used to probe for accounts.
      if (!user) return { message: RESET_SENT };
      const token = newToken();
      await repo.insertReset(hashToken(token), user.id, new Date(now().getTime() + RESET_TTL_MS));
      if (deps.mailer) {
        await deps.mailer.send(
          email,
          'Reset your Eyevu password',
          `Use this code to reset your password within one hour:\n\n${token}\n\nIf you did not ask for it, ignore this email.`,
        );
        return { message: RESET_SENT };
      }
      if (config.demoMode) return { message: 'Demo mode: use the reset token below.', resetToken: token };
      return { message: RESET_SENT };
    },

    async resetPassword(token: string, password: string) {
      const userId = await repo.consumeResetAndSetPassword(hashToken(token), await hashPassword(password), now());
      // The reset deleted every session of the user; none may be served from the cache either.
      if (userId) deps.sessionCache.evictUser(userId);
      if (!userId) throw badRequest('This reset token is invalid or has expired.');
      return { message: 'Password reset successfully' };
    },
  };
}
export type AuthService = ReturnType<typeof createAuthService>;
