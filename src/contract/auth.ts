import { z } from 'zod';
import { TIME_ZONE_MAX_LENGTH } from '@domain/time-zone';
import { isBlankText } from './blank-text';

/**
 * Request and response shapes of the auth endpoints. The client's forms use the same schemas, so
 * the spec's validation rules (required fields, email format, password minimum 6) live once.
 */
export const PASSWORD_MIN = 6;

const email = z
  .string({ error: 'Email is required' })
  .trim()
  .min(1, 'Email is required')
  .max(254, 'Email is too long')
  .email('Please enter a valid email address');
export const PASSWORD_MAX = 200;

/**
 * The form a password is hashed in (NIST SP 800-63B): one password typed on two keyboards, one
 * sending 'é' as one code point (NFC) and the other as 'e' plus a combining accent (NFD), is one
 * password. NFKC rather than NFC also folds full-width and half-width forms, which East Asian input
 * methods switch between, and ligatures ('ﬁ') some keyboards and password managers produce.
 */
export const normalisePassword = (password: string) => password.normalize('NFKC');

const TOO_SHORT = `Password must be at least ${PASSWORD_MIN} characters`;
const TOO_LONG = `Password must be at most ${PASSWORD_MAX} characters`;
const passwordText = z.string({ error: 'Password is required' }).min(1, 'Password is required');

/** A password being set (sign-up, reset): its limits count the characters of the form hashed. */
const newPassword = passwordText
  .refine((v) => normalisePassword(v).length >= PASSWORD_MIN, TOO_SHORT)
  .refine((v) => normalisePassword(v).length <= PASSWORD_MAX, TOO_LONG);

/**
 * A password being tried: the limits let through every way of typing a password some account may
 * hold, or the owner would get a 400 on one of their devices. Accounts made before passwords were
 * normalised hold the typed form (at least 6 and at most 200 code units as typed); NFKD, the fully
 * decomposed form, is never shorter than any equivalent spelling, so it answers the minimum for all.
 */
const triedPassword = passwordText
  .refine((v) => v.normalize('NFKD').length >= PASSWORD_MIN, TOO_SHORT)
  .refine((v) => v.length <= PASSWORD_MAX || normalisePassword(v).length <= PASSWORD_MAX, TOO_LONG);
const name = (label: string) =>
  z
    .string({ error: `${label} is required` })
    .trim()
    .min(1, `${label} is required`)
    .max(100, `${label} must be at most 100 characters`)
    // A name of only invisible characters greeted the user with nothing where the spec says 'User'.
    .refine((v) => !isBlankText(v), `${label} is required`);

/**
 * The browser's IANA zone (`Intl.DateTimeFormat().resolvedOptions().timeZone`); it decides the
 * user's calendar day for daily rewards; the server stores its canonical spelling. A name the
 * server does not know is ignored (the stored zone stays, UTC if none), never refused: Chrome and
 * Safari report 'Etc/Unknown' when the device's zone is newer than their own zone data, and a
 * browser may know a zone this server's Node does not yet, and a 400 here locked those users out
 * of signing in and signing up.
 */
const timeZone = z.string().max(TIME_ZONE_MAX_LENGTH, 'Time zone is too long').optional();

export const loginBody = z.object({ email, password: triedPassword, timeZone });
export const registerBody = z.object({
  firstName: name('First name'),
  lastName: name('Last name'),
  email,
  password: newPassword,
  timeZone,
});
export const forgotPasswordBody = z.object({ email });
export const resetPasswordBody = z.object({
  token: z
    .string({ error: 'Reset token is required' })
    .trim()
    .min(1, 'Reset token is required')
    // Without its own message the type's ('required') was given for a token too long to be one.
    .max(200, 'This reset token is invalid or has expired.'),
  password: newPassword,
});

export const user = z.object({
  id: z.string(),
  email: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  createdAt: z.string(),
});
export const userResponse = z.object({ user });
export const messageResponse = z.object({ message: z.string() });
export const forgotPasswordResponse = z.object({
  message: z.string(),
  resetToken: z.string().optional(),
});

export type LoginBody = z.infer<typeof loginBody>;
export type RegisterBody = z.infer<typeof registerBody>;
export type ForgotPasswordBody = z.infer<typeof forgotPasswordBody>;
export type ResetPasswordBody = z.infer<typeof resetPasswordBody>;
export type User = z.infer<typeof user>;
export type ForgotPasswordResponse = z.infer<typeof forgotPasswordResponse>;
