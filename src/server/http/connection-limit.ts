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

function isLoopbackPeer(address: string): boolean {
  const family = isIP(address);
  return family !== 0 && LOOPBACK.check(address, family === 6 ? 'ipv6' : 'ipv4');
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
    const peer = socket.remoteAddress ?? '';
    if (!peer || (!opts.limitLoopback && isLoopbackPeer(normalizeIP(peer)))) return;
    const address = normalizeIP(peer);
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
