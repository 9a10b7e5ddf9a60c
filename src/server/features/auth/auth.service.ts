import { canonicalTimeZone, timeZoneToStore } from '@domain/time-zone';
import { normalisePassword, type RegisterBody } from '@contract/auth';
import type { Config } from '../../config';
import { SESSION_DAYS } from '../../http/session';
import { AppError, badRequest, conflict, unauthorized } from '../../http/errors';
import { hashToken, newToken } from '../../lib/tokens';
import type { AuthRepository, UserRow } from './auth.repository';
import type { Mailer } from './mailer';
import { getDummyHash, hashPassword, verifyPassword } from './password';
import { accountLimitMessage, secondsUntilRoom, SIGN_IN_BUDGET, type SignInBudget } from './sign-in-limit';

const RESET_TTL_MS = 60 * 60 * 1000;
const INVALID_LOGIN = 'Invalid email or password';
const INVALID_RESET = 'This reset token is invalid or has expired.';
export const RESET_SENT = 'If an account exists for that email, a reset link has been sent.';
export const DEMO_RESET_MESSAGE = 'Demo mode: use the reset token below.';
/** Reset requests waiting for their lookup and mail; beyond this a flood is dropped (and logged). */
const MAX_PENDING_RESETS = 1_000;

export const normaliseEmail = (email: string) => email.trim().toLowerCase();

export function createAuthService(deps: {
  repo: AuthRepository;
  config: Config;
  mailer?: Mailer;
  onUserCreated: Array<(u: { id: string; email: string }) => Promise<void>>;
  log: { error(obj: object, msg: string): void; warn(msg: string): void };
  /** The session caches (http/session-events.ts): ended sessions are evicted in every process. */
  sessionCache: { evict(sessionId: string): Promise<void>; evictUser(userId: string): Promise<void> };
  /** The clock of session expiry (this process's). */
  now?: () => Date;
  /**
   * The clock the rewards read days by (the server's, injectable in tests apart from `now`): when
   * the stored zone changed is compared with their days (rewardDayRange).
   */
  rewardsNow?: () => Date;
  /**
   * A test's clock for the per-account sign-in limit (sign-in-limit.ts) and browser standings.
   * Without it they are kept by the database's clock, the one every machine on it shares
   * (auth.repository.ts), never the process's; reset tokens always are.
   */
  limitNow?: () => Date;
  signInBudget?: SignInBudget;
}) {
  const { repo, config } = deps;
  const now = deps.now ?? (() => new Date());
  const rewardsNow = deps.rewardsNow ?? now;
  const limitNow = () => deps.limitNow?.();
  const budget = deps.signInBudget ?? SIGN_IN_BUDGET;
  const pending = new Set<Promise<void>>();

  /**
   * Runs after the answer is sent: the answer must not wait for the account lookup or the mail
   * server, or its timing would tell whether the email has an account.
   */
  function afterResponse(what: string, task: () => Promise<void>) {
    if (pending.size >= MAX_PENDING_RESETS) {
      deps.log.error({}, `${what} dropped: too many waiting`);
      return;
    }
    const job: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
      .then(task)
      .catch((err: unknown) => deps.log.error({ err }, `${what} failed`))
      .finally(() => pending.delete(job));
    pending.add(job);
  }

  async function mailResetLink(email: string, mailer: Mailer) {
    const user = await repo.findUserByEmail(email);
    if (!user) return;
    const token = newToken();
    await repo.insertReset(hashToken(token), user.id, RESET_TTL_MS);
    await mailer.send(
      email,
      'Reset your Eyevu password',
      `To reset your password, choose 'Forgot your password?' on the sign-in screen, then 'I already have a reset token', and enter this token within one hour:\n\n${token}\n\nIf you did not ask for it, ignore this email.`,
    );
  }

  async function startSession(userId: string) {
    const token = newToken();
    const expiresAt = new Date(now().getTime() + SESSION_DAYS * 86_400_000);
    await repo.insertSession(hashToken(token), userId, expiresAt);
    return { token, expiresAt };
  }

  /**
   * Gives this browser standing outside the account's failure budget (sign-in-limit.ts): its
   * device cookie is kept when it already holds it for this account, otherwise a fresh one (a
   * value planted in the browser is never adopted). Written only while the account's password is
   * still `passwordHash`, the one checked: after a reset, none. Answers the cookie's value to set,
   * if written.
   */
  async function trustBrowser(userId: string, passwordHash: string, held: string | undefined, heldIsTrusted: boolean) {
    const device = held && heldIsTrusted ? held : newToken();
    try {
      return (await repo.trustDevice(hashToken(device), userId, passwordHash, limitNow())) ? device : undefined;
    } catch (err) {
      // The sign-in or sign-up itself succeeded; without the cookie this browser simply has no
      // standing yet, which an error answer over a made session would not mend.
      deps.log.error({ err }, 'device standing not written');
      return undefined;
    }
  }

  /**
   * Replaces an account's hash of the password as once typed by one of its normalised form, once:
   * after it, every device's spelling signs in with one hash. After the session is made (that
   * checked the old hash still stood), and only over that hash, so a reset or another device's
   * upgrade landing meanwhile is kept.
   */
  async function upgradeHash(userId: string, oldHash: string, normalised: string) {
    try {
      await repo.replacePasswordHash(userId, oldHash, await hashPassword(normalised));
    } catch (err) {
      // The sign-in succeeded; the next one from this spelling tries again.
      deps.log.error({ err }, 'password hash not upgraded');
    }
  }

  return {
    startSession,
    trustBrowser,

    async register(body: RegisterBody): Promise<{ user: UserRow; token: string; expiresAt: Date }> {
      const email = normaliseEmail(body.email);
      const timeZone = body.timeZone ? canonicalTimeZone(body.timeZone) : null;
      const user = await repo.insertUser({
        email,
        firstName: body.firstName,
        lastName: body.lastName,
        passwordHash: await hashPassword(normalisePassword(body.password)),
        timeZone,
        timeZoneSetAt: timeZone ? rewardsNow() : null,
        // No earlier zone to count from: the first day is the zone's own (rewardDayRange).
        previousTimeZone: timeZone,
      });
      if (!user) throw conflict('An account with this email already exists.');
      // What every account starts with (the demo library, which the photo editor opens on). Kept
      // after a failure (a photo store failing for a moment), the account never got it, and its
      // owner's sign-up again was refused as an existing account: the account is undone instead,
      // before any session, and the failure answered (503 for a store or database that is down).
      try {
        for (const hook of deps.onUserCreated) await hook({ id: user.id, email });
      } catch (err) {
        await repo
          .deleteUser(user.id)
          .catch((undoErr: unknown) => deps.log.error({ err: undoErr }, 'a sign-up whose setup failed was not undone'));
        throw err;
      }
      return { user, ...(await startSession(user.id)) };
    },

    /**
     * Limits per address and per address + email are applied before this (http/rate-limits.ts);
     * the per-account one here: a browser without standing for the account takes a place in its
     * failure bucket before the password is checked, and past the budget is refused unchecked.
     * `device` is the browser's device cookie. Answers the device cookie to set.
     */
    async login(emailRaw: string, password: string, timeZoneRaw?: string, device?: string) {
      const email = normaliseEmail(emailRaw);
      const user = await repo.findUserByEmail(email);
      const trusted = !!user && !!device && (await repo.takeDeviceAttempt(hashToken(device), user.id, limitNow()));
      const bucket = hashToken(`sign-in:${email}`);
      if (!trusted) {
        const refusedAt = await repo.takeSignInPlace(bucket, limitNow(), budget);
        if (refusedAt !== null) {
          const seconds = secondsUntilRoom(refusedAt, budget);
          throw new AccountLimitError(seconds);
        }
      }
      const stored = user?.passwordHash ?? (await getDummyHash());
      const normalised = normalisePassword(password);
      let ok = await verifyPassword(normalised, stored);
      // Accounts made before passwords were normalised hold a hash of the password as typed then
      // (an NFD 'é' from that device). Only a password that normalisation changes can be one of
      // those, so an ASCII one (and any already normalised) still costs one hash per attempt. An
      // unknown email pays the same second hash, or its timing would tell the account apart.
      let legacy = false;
      if (!ok && normalised !== password) ok = legacy = await verifyPassword(password, stored);
      if (!user || !ok) throw unauthorized(INVALID_LOGIN);
      if (!trusted) await repo.returnSignInPlace(bucket, limitNow(), budget);
      const at = rewardsNow();
      const zone = { timeZone: user.timeZone, setAt: user.timeZoneSetAt };
      const timeZone = timeZoneToStore(zone, timeZoneRaw ? canonicalTimeZone(timeZoneRaw) : null, at);
      if (timeZone) await repo.setTimeZone(user.id, timeZone, user.timeZoneSetAt, at);
      const token = newToken();
      const expiresAt = new Date(now().getTime() + SESSION_DAYS * 86_400_000);
      // A reset that landed after the password was read has ended every session: none is started.
      if (!(await repo.insertSessionIfPassword(hashToken(token), user.id, user.passwordHash, expiresAt))) {
        throw unauthorized(INVALID_LOGIN);
      }
      // Before the hash upgrade: standing is written only over the hash this sign-in checked.
      const standing = await trustBrowser(user.id, user.passwordHash, device, trusted);
      if (legacy) await upgradeHash(user.id, user.passwordHash, normalised);
      return { user, token, expiresAt, device: standing };
    },

    async logout(sessionId: string) {
      await repo.deleteSession(sessionId);
      await deps.sessionCache.evict(sessionId);
    },

    /**
     * With a mail transport the answer is always RESET_SENT, byte for byte, and the lookup, token
     * and mail happen afterwards. Only the local demo (no mail, demoMode) answers with a token,
     * and then unknown emails get an equally shaped one that opens nothing. `fromThisMachine`: the
     * request came straight from a browser on this machine (see auth.routes.ts); unless
     * DEMO_MODE=true says anyone may, no other request gets a token.
     */
    async forgotPassword(
      emailRaw: string,
      fromThisMachine: boolean,
    ): Promise<{ message: string; resetToken?: string }> {
      const email = normaliseEmail(emailRaw);
      const { mailer } = deps;
      if (mailer) {
        afterResponse('password reset mail', () => mailResetLink(email, mailer));
        return { message: RESET_SENT };
      }
      if (config.demoMode && (config.demoModeOnPurpose || fromThisMachine)) {
        const token = newToken();
        const user = await repo.findUserByEmail(email);
        if (user) await repo.insertReset(hashToken(token), user.id, RESET_TTL_MS);
        return { message: DEMO_RESET_MESSAGE, resetToken: token };
      }
      deps.log.warn('password reset requested, but no mail transport is configured (SMTP_URL)');
      return { message: RESET_SENT };
    },

    /** The token is checked before the new password is hashed: scrypt's 128 MiB is spent on real resets only. */
    async resetPassword(token: string, password: string) {
      const id = hashToken(token);
      if (!(await repo.isResetLive(id))) throw badRequest(INVALID_RESET);
      // The mailbox was proven: this browser gets standing outside the failure budget (every other
      // browser's ends with the reset), in the reset's own transaction, so an owner on a new device
      // signs in during an attack.
      const device = newToken();
      const userId = await repo.consumeResetAndSetPassword(id, await hashPassword(normalisePassword(password)), {
        id: hashToken(device),
        at: limitNow(),
      });
      // The reset deleted every session of the user; none may be served from the cache either.
      if (userId) await deps.sessionCache.evictUser(userId);
      if (!userId) throw badRequest(INVALID_RESET);
      return { message: 'Password reset successfully', device };
    },

    /** Waits for reset work started after earlier answers (shutdown, tests). */
    async drain() {
      while (pending.size) await Promise.allSettled([...pending]);
    },
  };
}
export type AuthService = ReturnType<typeof createAuthService>;

/** A 429 from the per-account limit, with the seconds to wait for Retry-After. */
export class AccountLimitError extends AppError {
  constructor(readonly retryAfterSeconds: number) {
    super(429, accountLimitMessage(retryAfterSeconds), 'rate_limited');
  }
}
