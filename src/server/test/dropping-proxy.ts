import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface DroppingProxy {
  url: string;
  /** Closes the connection of the next `times` requests that `match`, before any answer. */
  drop(match: (req: http.IncomingMessage) => boolean, times: number): void;
  /**
   * Answers the next `times` requests that `match` with this status and an S3 error body, without
   * passing them on: a store failing on its side (500 InternalError, 503 SlowDown).
   */
  fail(match: (req: http.IncomingMessage) => boolean, status: number, times: number): void;
  /** Never answers the requests that `match` from now on (a hung store), until `release`. */
  hold(match: (req: http.IncomingMessage) => boolean): void;
  release(): void;
  /** Connections closed since the last `drop`; requests failed since the last `fail`; requests held. */
  readonly dropped: number;
  readonly failed: number;
  readonly held: number;
  close(): Promise<void>;
}

/**
 * A loopback HTTP proxy in front of a test server that closes chosen requests' connections with no
 * answer: what a client sees when a server drops a kept-alive connection as a request arrives on it.
 */
export async function startDroppingProxy(target: string): Promise<DroppingProxy> {
  const to = new URL(target);
  let rule: { match: (req: http.IncomingMessage) => boolean; left: number } | undefined;
  let failRule: { match: (req: http.IncomingMessage) => boolean; status: number; left: number } | undefined;
  let holdRule: ((req: http.IncomingMessage) => boolean) | undefined;
  let dropped = 0;
  let failed = 0;
  let held = 0;
  const server = http.createServer((req, res) => {
    if (rule && rule.left > 0 && rule.match(req)) {
      rule.left -= 1;
      dropped += 1;
      req.socket.destroy();
      return;
    }
    if (holdRule?.(req)) {
      // Read and ignored: the client waits for an answer that never comes.
      held += 1;
      req.resume();
      return;
    }
    if (failRule && failRule.left > 0 && failRule.match(req)) {
      failRule.left -= 1;
      failed += 1;
      const { status } = failRule;
      req.resume();
      req.once('end', () => {
        res.writeHead(status, { 'content-type': 'application/xml' });
        res.end(
          `<?xml version="1.0" encoding="UTF-8"?><Error><Code>InternalError</Code>` +
            `<Message>We encountered an internal error. Please try again.</Message></Error>`,
        );
      });
      return;
    }
    const upstream = http.request(
      { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    drop(match, times) {
      rule = { match, left: times };
      dropped = 0;
    },
    fail(match, status, times) {
      failRule = { match, status, left: times };
      failed = 0;
    },
    hold(match) {
      holdRule = match;
    },
    release() {
      holdRule = undefined;
    },
    get dropped() {
      return dropped;
    },
    get failed() {
      return failed;
    },
    get held() {
      return held;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
