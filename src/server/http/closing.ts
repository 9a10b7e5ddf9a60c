import type { FastifyInstance } from 'fastify';

/**
 * How long a shutdown (SIGTERM, a deploy) lets requests in flight finish before their connections
 * are cut. An upload trickling in, or a client that sent its headers and then went silent (60 s
 * before IDLE_CONNECTION_MS drops it), held `app.close()` for as long as it liked (a request may
 * take REQUEST_TIMEOUT_MS, 30 minutes): the orchestrator's own limit (Kubernetes 30 s, `docker stop`
 * 10 s) then killed the process before its close ran, so its analysis jobs stayed claimed for their
 * whole lock and its database connections were dropped mid-session. The analysis worker's own bound
 * (VISION_CLOSE_WAIT_MS, 15 s) runs alongside this one, from the close's start, so the close stays
 * within Kubernetes' 30 s.
 */
export const SHUTDOWN_GRACE_MS = 10_000;

/**
 * Once the app is closing, a response still being made is its connection's last: it says
 * `Connection: close`, and the connection is closed once the answer is out. Node closes only the
 * connections idle when the close began, so one whose answer finished after that was kept alive
 * (`Keep-Alive: timeout=30`) and `app.close()` waited out those 30 s with nothing to do.
 */
export function registerClosingConnections(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
  // An answer whose headers were out before the close began (a long download) kept its connection
  // alive: it is closed once that answer is done (Node skips a connection still answering).
  app.addHook('onResponse', (_request, _reply, done) => {
    if (closing) setImmediate(() => app.server.closeIdleConnections());
    done();
  });
}

/**
 * `app.close()`, with the requests still in flight after `graceMs` cut off so the close goes on
 * (the features' own close, the database) and the process can exit in bounded time. What such a
 * request had stored is whole (each photo is its own transaction; a staged file is removed when its
 * stream fails, or by the orphan sweep's temp-file clean-up).
 */
export async function closeWithin(
  app: FastifyInstance,
  opts: {
    graceMs?: number;
    /** Runs `cut` after `ms`; returns a cancel. Tests fire it themselves. */
    after?: (ms: number, cut: () => void) => () => void;
  } = {},
): Promise<void> {
  const graceMs = opts.graceMs ?? SHUTDOWN_GRACE_MS;
  const after =
    opts.after ??
    ((ms, cut) => {
      const timer = setTimeout(cut, ms);
      timer.unref();
      return () => clearTimeout(timer);
    });
  const cancel = after(graceMs, () => {
    app.log.warn(`requests still in flight ${graceMs} ms after the shutdown began: their connections are closed`);
    app.server.closeAllConnections();
  });
  try {
    await app.close();
  } finally {
    cancel();
  }
}
