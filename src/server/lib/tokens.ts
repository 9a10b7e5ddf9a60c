import { hash, randomBytes } from 'node:crypto';

/** 256 random bits, URL-safe: session and reset tokens. */
export const newToken = () => randomBytes(32).toString('base64url');
/**
 * Only this digest is stored, so a read of the database cannot be replayed as a session. One-shot
 * (no Hash object): every API request hashes its cookie.
 */
export const hashToken = (token: string) => hash('sha256', token, 'hex');
