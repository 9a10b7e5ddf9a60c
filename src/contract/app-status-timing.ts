/**
 * Zod-free constants of the app-status contract: the client's always-loaded code imports them
 * without pulling zod (~22 KB gzip) into the first JS chunk (bench/README.md, P5).
 */

/** While active the client sends a heartbeat this often. */
export const HEARTBEAT_INTERVAL_MS = 30_000;
