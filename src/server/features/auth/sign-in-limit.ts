/**
 * The per-account limit on failed sign-ins, on top of the per-address limits in http/rate-limits.ts.
 *
 * Those count per client address, so an attacker with many addresses could try one account's
 * password without end. Each account (each normalised email, with or without an account, so the
 * refusal tells nothing) has a leaky bucket of failures: `FAILURE_BUDGET` wrong passwords, one more
 * each `REFILL_MS` after that, kept in the database so every process and machine counts into it.
 * An attempt takes its place before the password is checked (one statement, under the row's
 * lock), so racing attempts cannot all pass an almost full bucket; a right password gives its place
 * back. Past the budget an attempt is refused without checking the password, right or wrong.
 *
 * A bucket alone would let a stranger keep the owner out, so a browser that has signed in to the
 * account (or created it, or reset its password: each proves the password or the mailbox) holds a
 * device cookie, and its attempts are outside the account's bucket: the owner's usual browsers
 * sign in during an attack. Such a cookie loses that standing after `DEVICE_FAILURES` wrong
 * passwords (a stolen cookie is not a key to unlimited guesses) and after `DEVICE_DAYS` unused; a
 * reset drops every browser's standing but the resetting one's. An owner on a new browser during a
 * sustained attack resets the password (not limited per account), which gives that browser the
 * standing at once; without an attack they wait at most `REFILL_MS` for the next attempt.
 */
export const FAILURE_BUDGET = 20;
export const REFILL_MS = 10 * 60_000;
export const DEVICE_FAILURES = 10;
export const DEVICE_DAYS = 180;
export const DEVICE_COOKIE = 'eyevu_device';
/** Sent only to the sign-in, sign-up and reset routes, which are the only readers. */
export const DEVICE_COOKIE_PATH = '/api/auth/';

export interface SignInBudget {
  failures: number;
  refillMs: number;
}
export const SIGN_IN_BUDGET: SignInBudget = { failures: FAILURE_BUDGET, refillMs: REFILL_MS };

/** How long until one more attempt fits, in whole seconds (at least 1). */
export function secondsUntilRoom(level: number, budget: SignInBudget): number {
  return Math.max(1, Math.ceil(((level + 1 - budget.failures) * budget.refillMs) / 1000));
}

export const accountLimitMessage = (seconds: number) =>
  `Too many failed sign-ins for this account. Please wait ${Math.ceil(seconds / 60)} minute(s) and try again, or reset your password.`;
