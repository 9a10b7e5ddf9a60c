import { createHash, randomBytes } from 'node:crypto';

/** 256 random bits, URL-safe: session and reset tokens. */
export const newToken = () => randomBytes(32).toString('base64url');
/** Only this digest is stored, so a read of the database cannot be replayed as a session. */
export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
