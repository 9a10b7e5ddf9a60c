import { sql } from 'drizzle-orm';
import pg from 'pg';
import type { Db } from '../db/client';
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

const CHANNEL = 'eyevu_session_ended';
const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 30_000;

/** One process: evicting here is all there is to do. */
export function localSessionEnds(cache: SessionCache<unknown>): SessionEnds {
  return {
    evict: async (id) => cache.evict(id),
    evictUser: async (id) => cache.evictUser(id),
    close: async () => {},
  };
}

/**
 * Listens on a connection of its own (LISTEN needs a session that a pool would hand to others) and
 * keeps the cache paused whenever it is not listening: from the start until LISTEN succeeds, and
 * from a lost connection until it is back (retried with backoff). Announcements go through the
 * app's pool as `pg_notify`, delivered by PostgreSQL to every listener when it commits.
 */
export function postgresSessionEnds(opts: {
  databaseUrl: string;
  db: Db;
  cache: SessionCache<unknown>;
  log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
}): SessionEnds {
  const { cache } = opts;
  let client: pg.Client | undefined;
  let retryMs = RETRY_FIRST_MS;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  cache.pause();

  const onNotification = (msg: pg.Notification) => {
    if (msg.channel !== CHANNEL || !msg.payload) return;
    const kind = msg.payload.slice(0, 2);
    const id = msg.payload.slice(2);
    if (kind === 's:') cache.evict(id);
    else if (kind === 'u:') cache.evictUser(id);
  };

  const lost = (c: pg.Client, err?: unknown) => {
    if (client !== c) return;
    client = undefined;
    cache.pause();
    c.removeAllListeners('notification');
    c.on('error', () => {});
    c.end().catch(() => {});
    if (closed) return;
    opts.log.warn({ err }, 'session events: not listening; sessions are read from the database until back');
    timer = setTimeout(connect, retryMs);
    timer.unref();
    retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
  };

  async function connect() {
    timer = undefined;
    if (closed) return;
    const c = new pg.Client({ connectionString: opts.databaseUrl, keepAlive: true });
    client = c;
    c.on('error', (err) => lost(c, err));
    c.on('end', () => lost(c));
    c.on('notification', onNotification);
    try {
      await c.connect();
      await c.query(`LISTEN ${CHANNEL}`);
    } catch (err) {
      lost(c, err);
      return;
    }
    if (client !== c || closed) return;
    retryMs = RETRY_FIRST_MS;
    cache.resume();
  }
  void connect();

  const announce = async (payload: string) => {
    try {
      await opts.db.execute(sql`select pg_notify(${CHANNEL}, ${payload})`);
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
      closed = true;
      clearTimeout(timer);
      const c = client;
      client = undefined;
      cache.pause();
      await c?.end().catch(() => {});
    },
  };
}
