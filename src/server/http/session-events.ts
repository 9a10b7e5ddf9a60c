import { sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { SESSION_ENDED_CHANNEL, type Notifications } from '../db/notifications';
import type { SessionCache } from './session-cache';

/**
 * Ended sessions, told to every server process on the same PostgreSQL database (LISTEN/NOTIFY), so
 * a logout or password reset in one process also ends the session in the others' caches: the
 * database stays the authority, the caches only repeat what it said a moment ago.
 */
export interface SessionEnds {
  /** One session ended (logout): evicted here, then announced; resolves once announced. */
  evict(sessionId: string): Promise<void>;
  /** Every session of a user ended (password reset). */
  evictUser(userId: string): Promise<void>;
  close(): Promise<void>;
}

/** One process: evicting here is all there is to do. */
export function localSessionEnds(cache: SessionCache<unknown>): SessionEnds {
  return {
    evict: async (id) => cache.evict(id),
    evictUser: async (id) => cache.evictUser(id),
    close: async () => {},
  };
}

/**
 * Hears other processes' announcements through the database's notifications (db/notifications.ts:
 * one dedicated listening connection per process, retried with backoff) and keeps the cache paused
 * whenever that connection is not listening: from the start until LISTEN succeeds, and from a lost
 * connection until it is back. Announcements go through the app's pool as `pg_notify`, delivered by
 * PostgreSQL to every listener when it commits.
 */
export function postgresSessionEnds(opts: {
  notifications: Notifications;
  db: Db;
  cache: SessionCache<unknown>;
  log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
}): SessionEnds {
  const { cache } = opts;
  if (!opts.notifications.listening) cache.pause();
  const unsubscribe = opts.notifications.subscribe(SESSION_ENDED_CHANNEL, {
    message(payload) {
      const kind = payload.slice(0, 2);
      const id = payload.slice(2);
      if (kind === 's:') cache.evict(id);
      else if (kind === 'u:') cache.evictUser(id);
    },
    listening(up) {
      if (up) return cache.resume();
      cache.pause();
      opts.log.warn({}, 'session events: not listening; sessions are read from the database until back');
    },
  });

  const announce = async (payload: string) => {
    try {
      await opts.db.execute(sql`select pg_notify(${SESSION_ENDED_CHANNEL}, ${payload})`);
    } catch (err) {
      // The session row is gone already; other processes' entries then age out (SESSION_CACHE_MS).
      opts.log.error({ err }, 'session events: could not announce an ended session');
    }
  };

  return {
    async evict(sessionId) {
      cache.evict(sessionId);
      await announce(`s:${sessionId}`);
    },
    async evictUser(userId) {
      cache.evictUser(userId);
      await announce(`u:${userId}`);
    },
    async close() {
      unsubscribe();
      cache.pause();
    },
  };
}
