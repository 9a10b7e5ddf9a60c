import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { BlockList, isIP } from 'node:net';
import type { Config } from '../config';

/**
 * Connections one client address (an IPv6 client by its /64, as the rate limits count it) may
 * hold open at once on a server reached directly (MAX_CONNECTIONS_PER_ADDRESS; 0 turns it off).
 * Nothing bounded them: one machine opening thousands of sockets, idle up to IDLE_CONNECTION_MS
 * each or trickling a body, held the process's file descriptors (and its memory per socket)
 * until new connections failed for everyone. A browser opens about 6 per host, so 64 leaves room
 * for about ten behind one NAT address.
 */
export const MAX_CONNECTIONS_PER_ADDRESS = 64;

/** Peers on this machine: a reverse proxy on the same host (TRUST_PROXY unset by mistake), the load tests. */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

function isLoopback(address: string): boolean {
  const family = isIP(address);
  return family !== 0 && LOOPBACK.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

/**
 * What a peer's connections are counted under: its address (an IPv4-mapped IPv6 one as IPv4, an
 * IPv6 one by its /64), or undefined for a peer on this machine unless `limitLoopback`. Loopback is
 * checked on the address itself as well as on the counted one: `::1`'s /64 is `::`, which is no
 * loopback address, so a local proxy over IPv6 was limited as one client.
 */
export function connectionKey(peer: string, limitLoopback = false): string | undefined {
  if (!peer) return undefined;
  const address = normalizeIP(peer);
  if (!limitLoopback && (isLoopback(peer) || isLoopback(address))) return undefined;
  return address;
}

/**
 * Refuses a connection past the limit of its address as soon as it is accepted (closed, no
 * answer: nothing of it is read). Only when the server is reached directly: behind a proxy that
 * TRUST_PROXY names, every connection comes from the proxy, and limiting per client is its job
 * (nginx `limit_conn`, HAProxy `maxconn`...). A peer on this machine is never limited, since a
 * proxy there would stand for every client at once.
 */
export function registerConnectionLimit(
  app: FastifyInstance,
  config: Pick<Config, 'trustProxy' | 'maxConnectionsPerAddress'>,
  opts: { limitLoopback?: boolean } = {},
): void {
  const max = config.maxConnectionsPerAddress;
  if (config.trustProxy !== false || max <= 0) return;
  const open = new Map<string, number>();
  app.server.on('connection', (socket: import('node:net').Socket) => {
    const address = connectionKey(socket.remoteAddress ?? '', opts.limitLoopback);
    if (address === undefined) return;
    const count = (open.get(address) ?? 0) + 1;
    if (count > max) {
      socket.destroy();
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}
