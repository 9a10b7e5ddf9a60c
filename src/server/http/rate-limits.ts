import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { BlockList, isIP } from 'node:net';
import type { Db } from '../db/client';
import { tooMany } from './errors';
import { createRateLimitRepository } from './rate-limit.repository';
import { postgresRateLimitStore } from './rate-limit-store';

/**
 * Every request limit of the app, in one table keyed by 'METHOD /url', applied by one `onRoute`
 * hook installed before any feature registers: a feature's routes need no edits to be limited.
 *
 * Counters (fixed windows) are in PostgreSQL when the app runs on it, so every server process and
 * machine counts into the same window (rate-limit-store.ts); on the embedded PGlite, which only
 * ever has one process, they are @fastify/rate-limit's in-memory stores (one LRU per rule).
 */
export type RateLimitKey =
  /** the client address (IPv6 by /64, so one host cannot rotate through its own prefix) */
  | 'ip'
  /** the signed-in user (a private route's limits never see a signed-out request: the auth gate answers 401 first) */
  | 'user'
  /** address + the posted email: a stranger elsewhere never uses up the owner's attempts */
  | 'ip+email'
  /** the posted email from any address: bounds the mail one inbox can be sent */
  | 'email';

export interface RateLimitRule {
  key: RateLimitKey;
  max: number;
  windowMs: number;
  /** Counts only the requests it accepts (a route whose cheap and costly uses share a URL). */
  when?: (request: FastifyRequest) => boolean;
}

export type RateLimitTable = Readonly<Record<string, readonly RateLimitRule[]>>;

const MINUTE = 60_000;
/** Pages built per request (after the first, and a category's), per user and 5 minutes: 4 a second, held for the whole window. */
export const PAGES_PER_WINDOW = 1200;

/**
 * Reads that total something over everything the user has, which the app asks again by itself, per
 * user and 5 minutes: 3 a second, held for the whole window. A loop is held to that; a person never
 * comes near it:
 * - library counts (summary, analysis status, the album list: every photo or membership, each call).
 *   The organizer polls the status every 2 s while jobs are pending, only in a visible tab (TanStack
 *   Query's refetchIntervalInBackground is off): 150 per tab and window; each poll whose count moved
 *   refreshes the summary and the albums once, so they are asked at most as often. Four organizers
 *   side by side for a whole window make 600. Other refreshes follow writes, bounded by those writes'
 *   limits (uploads 60 requests, a 50-photo upload being 3; deletes 60; filter applies 30; album
 *   creations 60), and a dashboard load asks the summary twice (the painted page's and the app's).
 * - the points ledger's totals (stats, rewards: kept per user by triggers, plus the chart's last
 *   8 days summed by day, two entries per ad skipped), refreshed after each ad (120 by its limit), each upload that earned points (60), an
 *   activation and each page load: a few hundred at most.
 */
const TOTALS_PER_WINDOW = 900;

/**
 * Whole original files (the viewer's zoom where no display rendition exists, downloads), per user
 * and 5 minutes: 2 a second. They cost no decode, but each is up to the upload size limit in bytes
 * and, on an object store, a billed read; the browser keeps what it has fetched, so a person zooming
 * or saving photo after photo stays well below it, and a loop is held to ~600 files a window.
 */
export const ORIGINALS_PER_WINDOW = 600;
/** Small thumbnails per user and 5 minutes (`GET /api/photos/:id/small`, HEAD counted with GET). */
export const SMALL_THUMBNAILS_PER_WINDOW = 600;

const withQuery = (name: string) => (request: FastifyRequest) =>
  Boolean((request.query as Record<string, unknown> | undefined)?.[name]);
const withParam = (name: string, value: string) => (request: FastifyRequest) =>
  (request.params as Record<string, unknown> | undefined)?.[name] === value;

export const DEFAULT_RATE_LIMITS: RateLimitTable = {
  // Each answer hashes a password with scrypt (128 MiB); 50 leaves room for a browser test suite
  // registering ~40 accounts from one address.
  'POST /api/auth/register': [{ key: 'ip', max: 50, windowMs: 15 * MINUTE }],
  'POST /api/auth/login': [
    { key: 'ip', max: 50, windowMs: 15 * MINUTE },
    { key: 'ip+email', max: 10, windowMs: 15 * MINUTE },
  ],
  'POST /api/auth/forgot-password': [
    { key: 'ip', max: 10, windowMs: 15 * MINUTE },
    { key: 'email', max: 5, windowMs: 60 * MINUTE },
  ],
  'POST /api/auth/reset-password': [{ key: 'ip', max: 10, windowMs: 15 * MINUTE }],
  'POST /api/photos': [{ key: 'user', max: 60, windowMs: 15 * MINUTE }],
  'POST /api/photo-filters/preview': [{ key: 'user', max: 120, windowMs: 5 * MINUTE }],
  'POST /api/photo-filters/apply': [{ key: 'user', max: 30, windowMs: 5 * MINUTE }],
  // The image a preview URL points at: a miss is the same render as a preview (~40 ms of CPU), so
  // without a limit the GET undid the preview's. The editor asks for 6 swatches per photo opened
  // and one image per preview; revalidations (304) count too.
  'GET /api/photo-filters/render': [{ key: 'user', max: 600, windowMs: 5 * MINUTE }],
  // Each album writes up to 1,000 memberships.
  'POST /api/albums': [{ key: 'user', max: 60, windowMs: 5 * MINUTE }],
  // The shortest simulated ad is 15 s, so an honest user needs about 20 of each per 5 minutes; the
  // rest is room for client retries (replays of one event id count here too).
  'POST /api/activities': [{ key: 'user', max: 120, windowMs: 5 * MINUTE }],
  'POST /api/ad-breaks': [{ key: 'user', max: 60, windowMs: 5 * MINUTE }],
  // Each call reads the user's login days and ledger totals in a transaction and mints nothing new
  // past the first of the day, so repeats buy only database work. The web app asks once per signed-in
  // page load (the day's login) and ignores a refusal; 60 is a reload every 5 s for 5 minutes.
  'POST /api/rewards/record': [{ key: 'user', max: 60, windowMs: 5 * MINUTE }],
  // The same for activation: each call writes the status row and checks the achievements (a
  // /api/rewards read twice), minting nothing past the day's first. The web app
  // activates only when inactive (the dashboard's switch, an ad break's start): 60 is a toggle every 5 s.
  'POST /api/app-status/activate': [{ key: 'user', max: 60, windowMs: 5 * MINUTE }],
  'POST /api/subscription': [{ key: 'user', max: 10, windowMs: 15 * MINUTE }],
  'POST /api/subscription/upgrade': [{ key: 'user', max: 20, windowMs: 15 * MINUTE }],
  'POST /api/subscription/cancel': [{ key: 'user', max: 10, windowMs: 15 * MINUTE }],
  'POST /api/create-subscription': [{ key: 'user', max: 10, windowMs: 15 * MINUTE }],
  // Each answer is a request to Stripe, whose limit is per merchant account: a loop by one account
  // spent every user's budget (their checkouts and cancels failed). The billing page asks once per visit.
  'GET /api/billing/invoices': [{ key: 'user', max: 60, windowMs: 5 * MINUTE }],
  // The library's own reads. A first page and its repeats come from memory and are not counted.
  // Every page after it (a cursor) is built for its request (about 8 ms of the server's CPU), so it is
  // counted, with room for scrolling to the end of 100,000 photos (500 pages) and back in a
  // window: it bounds what one account can make the server build, as `no-cache` once could. Also
  // costly per call: a search (a full-text count and a page), a display rendition (a decode of the
  // original: HEIC in WebAssembly), similar photos (fingerprints made for up to 100 photos still
  // without one), and the writes.
  'GET /api/photos': [{ key: 'user', max: PAGES_PER_WINDOW, windowMs: 5 * MINUTE, when: withQuery('cursor') }],
  'GET /api/photos/timeline': [
    { key: 'user', max: 300, windowMs: 5 * MINUTE, when: withQuery('q') },
    // A category's pages (the organizer's 'View All'), its first too, are built per request.
    {
      key: 'user',
      max: PAGES_PER_WINDOW,
      windowMs: 5 * MINUTE,
      when: (request) => withQuery('cursor')(request) || withQuery('category')(request),
    },
  ],
  // Every favourites page is built for its request (none is kept in memory, the first included).
  'GET /api/photos/favorites': [{ key: 'user', max: PAGES_PER_WINDOW, windowMs: 5 * MINUTE }],
  'GET /api/photos/:id/:variant': [
    { key: 'user', max: 120, windowMs: 5 * MINUTE, when: withParam('variant', 'display') },
    { key: 'user', max: ORIGINALS_PER_WINDOW, windowMs: 5 * MINUTE, when: withParam('variant', 'original') },
    // Made on demand (a small decode and encode, ~5-9 ms of CPU) and then kept in memory; the
    // dashboard asks for four per visit and the browser keeps them, immutable, under their version.
    { key: 'user', max: SMALL_THUMBNAILS_PER_WINDOW, windowMs: 5 * MINUTE, when: withParam('variant', 'small') },
  ],
  'GET /api/photos/:id/download': [{ key: 'user', max: ORIGINALS_PER_WINDOW, windowMs: 5 * MINUTE }],
  'GET /api/photos/:id/similar': [{ key: 'user', max: 60, windowMs: 5 * MINUTE }],
  // Each reads the whole library: every fingerprint (grouped four times), or every photo without a job.
  'GET /api/photos/duplicates': [{ key: 'user', max: 60, windowMs: 5 * MINUTE }],
  'POST /api/photos/analyze-all': [{ key: 'user', max: 30, windowMs: 5 * MINUTE }],
  // Counted over the whole library per call (see TOTALS_PER_WINDOW).
  'GET /api/photos/summary': [{ key: 'user', max: TOTALS_PER_WINDOW, windowMs: 5 * MINUTE }],
  'GET /api/photos/analysis-status': [{ key: 'user', max: TOTALS_PER_WINDOW, windowMs: 5 * MINUTE }],
  'GET /api/albums': [{ key: 'user', max: TOTALS_PER_WINDOW, windowMs: 5 * MINUTE }],
  'GET /api/stats': [{ key: 'user', max: TOTALS_PER_WINDOW, windowMs: 5 * MINUTE }],
  'GET /api/rewards': [{ key: 'user', max: TOTALS_PER_WINDOW, windowMs: 5 * MINUTE }],
  // The newest 200 activities, read, checked and written per call (~4 ms; a one-row read ~1 ms). The
  // app asks per dashboard load (and its painted page), after each ad (120 by its limit) and per
  // settings visit: the totals' budget leaves a person far from it.
  'GET /api/activities': [{ key: 'user', max: TOTALS_PER_WINDOW, windowMs: 5 * MINUTE }],
  'POST /api/photos/delete': [{ key: 'user', max: 60, windowMs: 5 * MINUTE }],
  'DELETE /api/photos/:id': [{ key: 'user', max: 300, windowMs: 5 * MINUTE }],
  'PUT /api/photos/:id/favorite': [{ key: 'user', max: 300, windowMs: 5 * MINUTE }],
};

/**
 * Requests of one user a route runs at once, beside its rate limit (which counts starts, not
 * requests still running). An upload holds each file in memory while it is received and checked
 * (up to MAX_UPLOAD_MB): 60 uploads held open together by one account held 60 files. Counted in
 * each process; on whenever the limits table is (RATE_LIMITS=off turns both off).
 */
export const DEFAULT_IN_FLIGHT_LIMITS: Readonly<Record<string, number>> = { 'POST /api/photos': 3 };

export const inFlightMessage = (max: number) =>
  `You already have ${max} uploads in progress. Please wait for one to finish and try again.`;

/** Keys kept per rule in memory; the least recently seen are dropped first (a flood of new keys cannot grow memory). */
const KEYS_PER_RULE = 20_000;
/** How often ended windows are deleted from the shared table (any process may; deleting twice is harmless). */
const PRUNE_EVERY_MS = 10 * 60_000;

export const tooManyMessage = (seconds: number) =>
  `Too many attempts. Please wait ${Math.max(1, Math.ceil(seconds / 60))} minute(s) and try again.`;

function postedEmail(request: FastifyRequest): string {
  const email = (request.body as { email?: unknown } | undefined)?.email;
  // The same normalisation as the auth service, so 'A@x.io ' and 'a@x.io' share a counter.
  return typeof email === 'string' ? email.trim().toLowerCase().slice(0, 254) : '';
}

function keyOf(kind: RateLimitKey, request: FastifyRequest): string {
  const ip = normalizeIP(request.ip);
  switch (kind) {
    case 'ip':
      return ip;
    case 'user':
      return request.sessionUser ? `user:${request.sessionUser.id}` : `ip:${ip}`;
    case 'ip+email':
      return `${ip} ${postedEmail(request)}`;
    case 'email':
      return postedEmail(request);
  }
}

/** Where a reverse proxy in front of the server connects from: this machine or a private network. */
const PROXY_NETWORKS = new BlockList();
for (const [net, bits] of [
  ['127.0.0.0', 8],
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const)
  PROXY_NETWORKS.addSubnet(net, bits, 'ipv4');
PROXY_NETWORKS.addAddress('::1', 'ipv6');
PROXY_NETWORKS.addSubnet('fc00::', 7, 'ipv6');

export const UNTRUSTED_PROXY_WARNING =
  'Requests arrive through a proxy (X-Forwarded-For from a local or private address) but TRUST_PROXY ' +
  'is not set: every client counts as the proxy in the per-address limits (login, register, password ' +
  "reset), so one client can use up everyone's attempts. Set TRUST_PROXY to the proxy's hop count or address.";

/**
 * Whether the request came through a proxy whose forwarding header the server ignored: it carries
 * X-Forwarded-For, its address is the socket's own (nothing was taken from the header), and that
 * is a local or private one, where a reverse proxy connects from.
 */
function throughUntrustedProxy(request: FastifyRequest): boolean {
  if (request.headers['x-forwarded-for'] === undefined) return false;
  const peer = normalizeIP(request.socket.remoteAddress ?? '');
  const family = isIP(peer);
  return family !== 0 && normalizeIP(request.ip) === peer && PROXY_NETWORKS.check(peer, family === 6 ? 'ipv6' : 'ipv4');
}

/**
 * Installs the limits. Call before any feature registers its routes. Limits run as the first
 * preHandler: after the session lookup (so 'user' keys work) and after body validation (so the email
 * is a checked string and a malformed request, refused for free, spends nobody's budget).
 */
export async function registerRateLimits(
  app: FastifyInstance,
  table: RateLimitTable,
  opts: {
    /** PostgreSQL: counters shared by every process on it. Unset: in this process's memory. */
    shared?: Db;
    /** Background pruning of the shared table runs with the other background workers. */
    prune?: boolean;
  } = {},
) {
  // global: false, so only routes listed here are limited, each by all of its rules.
  await app.register(rateLimit, {
    global: false,
    ...(opts.shared ? { store: postgresRateLimitStore(opts.shared) } : {}),
  });
  if (opts.shared && opts.prune) {
    const repo = createRateLimitRepository(opts.shared);
    const prune = () => repo.removeEnded().catch((err: unknown) => app.log.warn({ err }, 'rate limit pruning failed'));
    const timer = setInterval(prune, PRUNE_EVERY_MS);
    timer.unref();
    app.addHook('onClose', async () => clearInterval(timer));
  }
  const inFlightLimits = Object.keys(table).length > 0 ? DEFAULT_IN_FLIGHT_LIMITS : {};
  // Said once per process: a misconfiguration, not something each request should log.
  let proxyWarned = false;
  const limiterSets = new Map<
    string,
    Array<{ rule: RateLimitRule; limit: ReturnType<FastifyInstance['createRateLimit']> }>
  >();
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      // Fastify answers HEAD on a twin of each GET route (this hook sees it as 'HEAD'), running the
      // GET's handler: it is the GET's work, so it takes the GET's rules and counts in its budget.
      const limitedAs = method === 'HEAD' ? 'GET' : method;
      const routeKey = `${limitedAs} ${route.url}`;
      const inFlightMax = inFlightLimits[routeKey];
      if (inFlightMax) route.handler = inFlightGuard(method, inFlightMax, route.handler);
      const rules = table[routeKey];
      if (!rules?.length) continue;
      // createRateLimit, not app.rateLimit(): the latter marks the request as checked, so a second
      // limit on the same route would never run.
      const limiters =
        limiterSets.get(routeKey) ??
        rules.map((rule, i) => ({
          rule,
          limit: app.createRateLimit({
            max: rule.max,
            timeWindow: rule.windowMs,
            // The rule in the key: a shared store has one table for every rule.
            keyGenerator: (request) => `${routeKey} #${i}\n${keyOf(rule.key, request)}`,
            // The LRU size; typed on the route options only.
            ...({ cache: KEYS_PER_RULE } as object),
          }),
        }));
      // The same limiters (and so, in memory, the same counters) for the GET and its HEAD twin.
      limiterSets.set(routeKey, limiters);
      const byAddress = rules.some((r) => r.key === 'ip' || r.key === 'ip+email');
      const check = async (request: FastifyRequest, reply: FastifyReply) => {
        if (request.method !== method) return;
        if (byAddress && !proxyWarned && throughUntrustedProxy(request)) {
          proxyWarned = true;
          request.log.warn(UNTRUSTED_PROXY_WARNING);
        }
        let waitMs = 0;
        // Every rule counts the request, so one over its limit does not let the others reset.
        for (const { rule, limit } of limiters) {
          if (rule.when && !rule.when(request)) continue;
          const r = await limit(request);
          if (!r.isAllowed && r.isExceeded) waitMs = Math.max(waitMs, r.ttl);
        }
        if (waitMs > 0) {
          const seconds = Math.max(1, Math.ceil(waitMs / 1000));
          reply.header('Retry-After', String(seconds));
          request.log.warn({ route: `${method} ${route.url}` }, 'rate limited');
          throw tooMany(tooManyMessage(seconds));
        }
      };
      const existing = route.preHandler ? [route.preHandler].flat() : [];
      route.preHandler = [check, ...existing];
    }
  });
}

/**
 * Admits at most `max` requests of one user at once (a private route: the auth gate has answered
 * every request without a session). A place is held until the handler has settled, however the
 * request ends: given back when the connection closed, a client that sent its whole file and hung
 * up left the handler decoding it while a fourth, fifth, ... file was let in beside it.
 */
function inFlightGuard(method: string, max: number, handler: RouteOptions['handler']): RouteOptions['handler'] {
  const running = new Map<string, number>();
  return async function (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
    if (request.method !== method) return handler.call(this, request, reply);
    const key = keyOf('user', request);
    const now = running.get(key) ?? 0;
    if (now >= max) {
      reply.header('Retry-After', '1');
      request.log.warn({ route: `${method} ${request.routeOptions.url}` }, 'too many in flight');
      throw tooMany(inFlightMessage(max));
    }
    running.set(key, now + 1);
    try {
      return await handler.call(this, request, reply);
    } finally {
      const left = (running.get(key) ?? 1) - 1;
      if (left > 0) running.set(key, left);
      else running.delete(key);
    }
  };
}
