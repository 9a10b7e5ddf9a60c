import pg from 'pg';

/**
 * Channels that triggers in the migrations notify on. Every connection of the process listens on
 * them from the moment it opens, so a write's own notification reaches this process before the
 * statement that made it resolves (PostgreSQL and PGlite both deliver a session's own
 * notifications ahead of its ReadyForQuery).
 */
/** Ended sessions (http/session-events.ts): 's:<session id>' or 'u:<user id>'. */
export const SESSION_ENDED_CHANNEL = 'eyevu_session_ended';
export const NOTIFY_CHANNELS = ['eyevu_photo_library', SESSION_ENDED_CHANNEL] as const;
export type NotifyChannel = (typeof NOTIFY_CHANNELS)[number];

export interface NotificationListener {
  message(payload: string): void;
  /**
   * false: notifications may be missed from now on; true: listening again, so every write that
   * commits from now on is told (what was missed meanwhile is only in the database).
   */
  listening(up: boolean): void;
}

/** Notifications from every writer on the database: this process's writes and other processes'. */
export interface Notifications {
  /** Whether the dedicated connection is listening: only then are other processes' writes told. */
  readonly listening: boolean;
  subscribe(channel: NotifyChannel, listener: NotificationListener): () => void;
}

/** The dedicated connection's application_name. */
export const LISTENER_NAME = 'eyevu_listener';
const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 30_000;

/**
 * The process's notifications: its pool's connections (`attach`, run as each one opens) deliver
 * its own writes' notifications synchronously, and one dedicated connection, which no pool ever
 * hands out, hears other processes' writes while every pool connection may be busy or closed.
 * That connection is retried with backoff when lost, and subscribers are told whenever it stops
 * or starts listening.
 */
export function createNotificationHub(clientConfig: pg.ClientConfig) {
  const subscribers = new Map<string, Set<NotificationListener>>();
  let up = false;
  let client: pg.Client | undefined;
  let timer: NodeJS.Timeout | undefined;
  let retryMs = RETRY_FIRST_MS;
  let closed = false;

  const dispatch = (msg: pg.Notification) => {
    const set = subscribers.get(msg.channel);
    if (!set || msg.payload === undefined) return;
    for (const l of set) l.message(msg.payload);
  };

  const setListening = (value: boolean) => {
    if (up === value) return;
    up = value;
    for (const set of subscribers.values()) for (const l of set) l.listening(value);
  };

  const lost = (c: pg.Client) => {
    if (client !== c) return;
    client = undefined;
    setListening(false);
    c.removeAllListeners('notification');
    c.on('error', () => {});
    c.end().catch(() => {});
    if (closed) return;
    timer = setTimeout(connect, retryMs);
    timer.unref();
    retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
  };

  async function connect() {
    timer = undefined;
    if (closed) return;
    // Named, so it can be told apart from the pool's connections in pg_stat_activity.
    const c = new pg.Client({ ...clientConfig, keepAlive: true, application_name: LISTENER_NAME });
    client = c;
    c.on('error', () => lost(c));
    c.on('end', () => lost(c));
    c.on('notification', dispatch);
    try {
      await c.connect();
      for (const channel of NOTIFY_CHANNELS) await c.query(`LISTEN ${channel}`);
    } catch {
      lost(c);
      return;
    }
    if (client !== c || closed) return;
    retryMs = RETRY_FIRST_MS;
    setListening(true);
  }

  const notifications: Notifications = {
    get listening() {
      return up;
    },
    subscribe(channel, listener) {
      let set = subscribers.get(channel);
      if (!set) subscribers.set(channel, (set = new Set()));
      set.add(listener);
      return () => void set.delete(listener);
    },
  };

  return {
    notifications,
    /**
     * For the pool's `onConnect`: the connection hands its notifications over and listens before
     * its first statement; one that cannot listen is closed by the pool, never used.
     */
    async attach(c: pg.ClientBase) {
      c.on('notification', dispatch);
      // A connection lost mid-statement may have committed a write whose notification never
      // arrived: what is known may be stale, so subscribers start over.
      c.on('error', () => {
        if (!up) return;
        setListening(false);
        if (client && !closed) setListening(true);
      });
      for (const channel of NOTIFY_CHANNELS) await c.query(`LISTEN ${channel}`);
    },
    start() {
      void connect();
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      const c = client;
      client = undefined;
      setListening(false);
      await c?.end().catch(() => {});
    },
  };
}
