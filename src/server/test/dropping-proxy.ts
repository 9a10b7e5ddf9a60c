import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface DroppingProxy {
  url: string;
  /** Closes the connection of the next `times` requests that `match`, before any answer. */
  drop(match: (req: http.IncomingMessage) => boolean, times: number): void;
  /** Connections closed since the last `drop`. */
  readonly dropped: number;
  close(): Promise<void>;
}

/**
 * A loopback HTTP proxy in front of a test server that closes chosen requests' connections with no
 * answer: what a client sees when a server drops a kept-alive connection as a request arrives on it.
 */
export async function startDroppingProxy(target: string): Promise<DroppingProxy> {
  const to = new URL(target);
  let rule: { match: (req: http.IncomingMessage) => boolean; left: number } | undefined;
  let dropped = 0;
  const server = http.createServer((req, res) => {
    if (rule && rule.left > 0 && rule.match(req)) {
      rule.left -= 1;
      dropped += 1;
      req.socket.destroy();
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
    get dropped() {
      return dropped;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
