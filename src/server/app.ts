import cookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { existsSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import type { Config } from './config';
import type { AppContext } from './context';
import { openDatabase, type Database } from './db/client';
import { registerBodyDeadline, type After } from './http/body-deadline';
import { registerClosingConnections } from './http/closing';
import { registerConnectionLimit } from './http/connection-limit';
import { registerCompression } from './http/compression';
import { answerRouterError, registerErrorHandler, registerNotFound } from './http/errors';
import { registerJsonBodyParser } from './http/json-body';
import { registerRateLimits } from './http/rate-limits';
import { registerSecurityHeaders, type SecurityHeaders } from './http/security-headers';
import {
  APP_STATUS,
  DASHBOARD_FIRST_SCREEN,
  GALLERY_FIRST_PAGE,
  loadWebPages,
  pageHandler,
  type FirstDashboard,
  type FirstGalleryPage,
  type PaintedAppStatus,
} from './http/web-pages';
import { registerAuthGate, registerOriginCheck, registerSessionLookup } from './http/session';
import { collectRoutes, registerDocs } from './http/route-table';
import { authRoutes, type Mailer } from './features/auth/index';
import { photosRoutes } from './features/photos/index';
import { filtersRoutes, type FiltersRouteOptions } from './features/filters/index';
import { analysisRoutes, type AnalysisRoutesOptions } from './features/analysis/index';
import { albumsRoutes } from './features/albums/index';
import { findRoutes } from './features/find/index';
import { openBlobStore } from './storage/open-blob-store';
import { activitiesRoutes } from './features/activities/index';
import { appStatusRoutes } from './features/app-status/index';
import { createLedger, rewardsRoutes } from './features/rewards/index';
import { healthRoutes } from './features/health/index';
import { createStripeGateway, paymentsRoutes } from './features/payments/index';
import { createSubscriptionReader, subscriptionsRoutes } from './features/subscriptions/index';
import { createServerActivity, type ServerActivity } from './lib/server-activity';

export interface BuildOptions {
  /** Tests hand in a shared database so PGlite boots once per worker. */
  database?: Database;
  /** Tests swap the vision models for a double (queue and album tests). */
  analysis?: AnalysisRoutesOptions;
  /** Tests hand in a filter pool they can watch. */
  filters?: FiltersRouteOptions;
  /** Tests capture the structured log here (at 'info' when the config says 'silent'). */
  logStream?: { write(line: string): void };
  /** Tests capture password reset mail here. */
  mailer?: Mailer;
  /** The server's clock for time rules (ad breaks); tests move it instead of sleeping. */
  now?: () => Date;
  /** Tests watch or hold the work that waits for a quiet server. */
  activity?: ServerActivity;
  /** Tests shorten IDLE_CONNECTION_MS to see a silent connection dropped. */
  idleConnectionMs?: number;
  /** Tests fire the request body deadline (BODY_DEADLINE_MS) themselves instead of waiting it out. */
  bodyDeadline?: After;
  /** Tests: loopback peers count against MAX_CONNECTIONS_PER_ADDRESS too (they stand for remote clients). */
  limitLoopbackConnections?: boolean;
}

/**
 * A connection silent this long (no byte either way) is closed. Fastify's default, none, let a
 * client that declared a body (a Content-Length, a multipart upload) and never sent it hold its
 * connection for ever, on any route, signed in or not. A real upload sends bytes all the time,
 * and no handler works near this long before it answers (it would lose its client too).
 */
export const IDLE_CONNECTION_MS = 60_000;
/**
 * The longest one request may take to arrive, however it trickles: 20 photos at the upload size
 * limit over a slow mobile link. Fastify's default, none, bounded nothing. Node's bound is
 * server-wide; every other body has BODY_DEADLINE_MS (http/body-deadline.ts).
 */
export const REQUEST_TIMEOUT_MS = 30 * 60_000;
/**
 * How long a kept-alive connection may wait idle for its next request; the server announces it
 * (`Keep-Alive: timeout=30`), and clients that read the hint (undici, the AWS SDK's agents) close
 * their side first. It must be well below IDLE_CONNECTION_MS: Fastify's default (72 s) announced
 * more than the 60 s after which the socket is destroyed, so such a client sent its next request
 * on a connection that was being closed and got no answer ("other side closed").
 */
export const KEEP_ALIVE_MS = 30_000;

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
  }
}

/** Builds the whole server without listening: main.ts listens, tests call `inject`. */
export async function buildApp(config: Config, opts: BuildOptions = {}): Promise<FastifyInstance> {
  // Set once the headers are worked out, below: the router's refusals run no hook to set them.
  const headersFor: { routerRefusals?: SecurityHeaders } = {};
  const app = Fastify({
    logger:
      config.logLevel === 'silent' && !opts.logStream
        ? false
        : {
            level: config.logLevel === 'silent' ? 'info' : config.logLevel,
            redact: ['req.headers.cookie', 'req.headers.authorization', 'res.headers["set-cookie"]'],
            ...(opts.logStream ? { stream: opts.logStream } : {}),
          },
    trustProxy: trustProxyOption(config.trustProxy),
    bodyLimit: 1024 * 1024,
    connectionTimeout: opts.idleConnectionMs ?? IDLE_CONNECTION_MS,
    keepAliveTimeout: Math.min(KEEP_ALIVE_MS, (opts.idleConnectionMs ?? IDLE_CONNECTION_MS) / 2),
    requestTimeout: REQUEST_TIMEOUT_MS,
    frameworkErrors: (err, request, reply) => answerRouterError(err, request, reply, headersFor.routerRefusals),
  });
  // Process-wide; every thread that loads sharp sets it again (lib/image-threads.ts).
  sharp.concurrency(config.imageThreads);
  registerJsonBodyParser(app);
  // First of the hooks: its clock runs from the request's start, whichever hook answers first.
  registerBodyDeadline(app, { after: opts.bodyDeadline });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // Before any route: the authorisation matrix, the fuzzer and /api/docs are generated from it.
  collectRoutes(app);

  // The object store first: an unreachable bucket stops the start before a database is opened.
  const store = await openBlobStore(config, app.log);
  const database = opts.database ?? (await openDatabase({ ...config, onWarning: (message) => app.log.warn(message) }));
  const now = opts.now ?? (() => new Date());
  const ctx: AppContext = {
    config,
    database,
    db: database.db,
    subscriptions: createSubscriptionReader(database.db, now),
    ledger: createLedger(database.db),
    blobs: store.blobs,
    onUserCreated: [],
    onPhotosUploaded: [],
    onPhotoDeleted: [],
    onPhotoIngested: [],
    activity:
      opts.activity ?? createServerActivity({ log: (err) => app.log.error({ err }, 'work after a request failed') }),
    onClose: [],
    now,
    testNow: opts.now,
  };
  app.decorate('ctx', ctx);
  app.addHook('onClose', async () => {
    // Work still waiting for a quiet moment runs now, so the features' own close waits for it.
    ctx.activity.close();
    for (const stop of ctx.onClose) await stop();
    if (!opts.database) await database.close();
    await store.close();
  });

  // Every request counts until its response is done (or its client has gone): background work
  // waits for a quiet server (lib/server-activity.ts).
  app.addHook('onRequest', (_request, reply, done) => {
    ctx.activity.trackRequest(reply.raw);
    done();
  });
  registerClosingConnections(app);
  registerConnectionLimit(app, config, { limitLoopback: opts.limitLoopbackConnections });
  await app.register(cookie);
  const spa = !!config.webDir && existsSync(path.join(config.webDir, 'index.html'));
  const pages = spa ? loadWebPages(config.webDir!) : null;
  // Helmet's headers, computed once (http/security-headers.ts), not rebuilt on every request.
  headersFor.routerRefusals = await registerSecurityHeaders(app, {
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        // The pages' inline scripts by hash only (http/web-pages.ts); never 'unsafe-inline'.
        scriptSrc: ["'self'", ...(pages?.scriptHashes ?? []), 'https://js.stripe.com'],
        frameSrc: ["'self'", 'https://js.stripe.com', 'https://hooks.stripe.com'],
        connectSrc: ["'self'", 'https://api.stripe.com'],
        imgSrc: ["'self'", 'data:', 'blob:'],
        styleSrc: ["'self'", "'unsafe-inline'"],
        workerSrc: ["'self'"],
        manifestSrc: ["'self'"],
        upgradeInsecureRequests: null,
      },
    },
    crossOriginEmbedderPolicy: false,
  });
  registerCompression(app);
  registerErrorHandler(app);
  registerOriginCheck(app);
  registerSessionLookup(app, ctx);
  registerAuthGate(app);
  // Before any feature: the limits table (http/rate-limits.ts) is applied to routes as they register.
  await registerRateLimits(app, config.rateLimits, {
    shared: database.kind === 'postgres' ? database.db : undefined,
    prune: config.startWorkers,
  });

  await healthRoutes(app, ctx);
  await authRoutes(app, ctx, { mailer: opts.mailer });
  const photos = await photosRoutes(app, ctx);
  await findRoutes(app, ctx, { present: (rows) => photos.present(rows), firstPages: photos.firstPages });
  await filtersRoutes(app, ctx, opts.filters);
  await analysisRoutes(app, ctx, opts.analysis);
  await albumsRoutes(app, ctx);
  const stripe = createStripeGateway(config, (msg, detail) => app.log.error(detail, msg));
  await subscriptionsRoutes(app, ctx, { stripe });
  await paymentsRoutes(app, ctx, { stripe });
  await rewardsRoutes(app, ctx);
  // Ad overlay (no mini-game) activities need a subscription active when the ad began; mini-games do not.
  await activitiesRoutes(app, ctx, { canUseAdOverlay: (userId, at) => ctx.subscriptions.isActive(userId, at) });
  await appStatusRoutes(app, ctx);
  registerDocs(app);

  if (spa) await serveWeb(app, config.webDir!);
  registerNotFound(app, {
    page: pages
      ? pageHandler(pages, {
          firstGallery: (cookie) => firstGalleryPage(ownRoutes(app, cookie)),
          firstDashboard: (cookie) => firstDashboard(ownRoutes(app, cookie)),
          pictures: (cookie) => async (url) => {
            const res = await ownRoutes(app, cookie).get(url);
            return res.statusCode === 200 ? { type: String(res.headers['content-type']), bytes: res.rawPayload } : null;
          },
          now: ctx.now,
        })
      : null,
  });
  return app;
}

/**
 * Fastify 5 treats a numeric trustProxy as "trust nothing", so a hop count becomes the function
 * proxy-addr calls per hop (0 = the socket peer): the nearest `hops` addresses are our proxies.
 */
function trustProxyOption(trust: Config['trustProxy']) {
  if (typeof trust !== 'number') return trust;
  return (_address: string, hop: number) => hop < trust;
}

/**
 * The app's own routes as one page request sees them: each asked with that request's cookie, so a
 * painted screen gets the same session check, ownership and caches as the app's own requests.
 */
function ownRoutes(app: FastifyInstance, cookie: string) {
  const get = (url: string) => app.inject({ method: 'GET', url, headers: { cookie } });
  const json = async <T>(url: string): Promise<T | null> => {
    const res = await get(url);
    return res.statusCode === 200 ? (res.json() as T) : null;
  };
  return {
    get,
    json,
    /**
     * The app status every painted screen's status bar shows (its Active badge, painted where the
     * app shows it, or the product name beside it moves when the app takes over); null if refused.
     */
    appStatus: () => json<PaintedAppStatus>(APP_STATUS),
  };
}
type OwnRoutes = ReturnType<typeof ownRoutes>;

/**
 * The gallery's first page for the page the server paints, from the timeline route itself (the
 * same per-user first-page cache as the app's own request), so the painted photos are the ones the
 * screen then shows. An app status that cannot be read paints the bar without its badge.
 */
async function firstGalleryPage(routes: OwnRoutes): Promise<FirstGalleryPage | null> {
  const page = await routes.json<FirstGalleryPage>(GALLERY_FIRST_PAGE);
  // After the timeline, which checked the session: a made-up cookie costs one lookup.
  return page && { ...page, appStatus: await routes.appStatus() };
}

/**
 * The dashboard's first screen, from the routes the screen itself asks, or null unless every one
 * answers 200 (a stale cookie answers 401): the page is then the plain one. The user's answer
 * comes first and alone: it checks the session against the database (the other routes find it in
 * the session cache then), so a made-up cookie costs one lookup, not six.
 */
async function firstDashboard(routes: OwnRoutes): Promise<FirstDashboard | null> {
  const screen = DASHBOARD_FIRST_SCREEN;
  const auth = await routes.json<{ user: FirstDashboard['user'] }>(screen.user);
  if (!auth) return null;
  const [stats, photos, summary, subscription, appStatus] = await Promise.all([
    routes.json<FirstDashboard['stats']>(screen.stats),
    routes.json<FirstDashboard['photos']>(screen.photos),
    routes.json<FirstDashboard['summary']>(screen.summary),
    routes.json<FirstDashboard['subscription']>(screen.subscription),
    routes.appStatus(),
  ]);
  if (!stats || !photos || !summary || !subscription || !appStatus) return null;
  return { user: auth.user, stats, photos, summary, subscription, appStatus };
}

async function serveWeb(app: FastifyInstance, webDir: string) {
  await app.register(fastifyStatic, {
    root: webDir,
    wildcard: false,
    index: false,
    // Brotli or gzip files written at build time (scripts/precompress-web.mjs), chosen by Accept-Encoding.
    preCompressed: true,
    setHeaders(res, filePath) {
      // Vite fingerprints everything under /assets, so those never change under the same name.
      if (filePath.includes(`${path.sep}assets${path.sep}`)) {
        res.header('Cache-Control', 'public, max-age=31536000, immutable');
      } else {
        res.header('Cache-Control', 'no-cache');
      }
    },
  });
}
