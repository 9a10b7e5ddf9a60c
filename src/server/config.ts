import { isIP } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { MAX_CONNECTIONS_PER_ADDRESS } from './http/connection-limit';
import { DEFAULT_RATE_LIMITS, type RateLimitTable } from './http/rate-limits';
import type { S3StoreSettings } from './storage/s3-blob-store';

/**
 * The only reader of process.env. Everything the server can be told from outside is parsed here
 * once, at boot, so a bad value stops the process with a message instead of failing later.
 */
const booleanFromEnv = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('production'),
  PORT: z.coerce.number().int().min(0).max(65535).default(5000),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'DATABASE_URL must start with postgres:// or postgresql://')
    .optional(),
  BLOB_DIR: z.string().min(1).optional(),
  BLOB_STORE_URL: z.string().min(1).optional(),
  // The object store's credentials and region, under the names every S3 tool reads.
  AWS_ACCESS_KEY_ID: z.string().min(1).optional(),
  AWS_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  AWS_SESSION_TOKEN: z.string().min(1).optional(),
  AWS_REGION: z.string().min(1).optional(),
  AWS_DEFAULT_REGION: z.string().min(1).optional(),
  WEB_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(1),
  // At least 3: a run holding a session lock (`runAlone`, a checkout's `serialise`) holds one each,
  // and the runs' own statements need another (db/client.ts).
  DATABASE_POOL_MAX: z.coerce.number().int().min(3).max(100).default(10),
  // Unset: on only when the server listens on loopback (see resolveDemoMode).
  DEMO_MODE: booleanFromEnv.optional(),
  SMTP_URL: z.string().url('SMTP_URL must be a URL such as smtp://user:pass@host:587').optional(),
  MAIL_FROM: z.string().min(3).default('Eyevu <no-reply@eyevu.local>'),
  STRIPE_SECRET_KEY: z.string().min(1).optional(),
  STRIPE_WEBHOOK_SECRET: z.string().min(1).optional(),
  VITE_STRIPE_PUBLIC_KEY: z.string().min(1).optional(),
  MAX_UPLOAD_MB: z.coerce.number().positive().max(1024).default(50),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // 'off' only for load tests on this machine: refused unless the server listens on loopback.
  RATE_LIMITS: z.enum(['on', 'off']).default('on'),
  TRUST_PROXY: z.string().optional(),
  // Without TRUST_PROXY only (http/connection-limit.ts); 0 turns the limit off.
  MAX_CONNECTIONS_PER_ADDRESS: z.coerce.number().int().min(0).max(100_000).default(MAX_CONNECTIONS_PER_ADDRESS),
  VISION_THREADS: z.coerce.number().int().min(1).max(16).optional(),
  IMAGE_THREADS: z.coerce.number().int().min(1).max(64).optional(),
});

/** Sized for the 2-core target: more libvips threads than cores only add contention. */
export const DEFAULT_IMAGE_THREADS = 2;

export interface Config {
  env: 'development' | 'production' | 'test';
  port: number;
  host: string;
  dataDir: string;
  /** PostgreSQL server when set; otherwise the embedded PGlite in `<dataDir>/db`. */
  databaseUrl?: string;
  /**
   * PostgreSQL connections each server process's pool may open (DATABASE_POOL_MAX); the process
   * opens one more to listen for notifications. Sized so WEB_CONCURRENCY x (this + 1), over every
   * machine, stays under the server's max_connections.
   */
  databasePoolMax: number;
  /**
   * Test-only: the bound on a PostgreSQL request query (db/client.ts DB_QUERY_TIMEOUT_MS), so a
   * test of a silent server need not wait the real one. Never read from the environment.
   */
  databaseQueryTimeoutMs?: number;
  /**
   * Test-only: in place of BLOB_REMOVAL_DEADLINE_MS (storage/blob-store.ts), so a test
   * of a silent store need not wait the real one. Never read from the environment.
   */
  blobRemovalDeadlineMs?: number;
  /** Where PGlite keeps its files; 'memory://' keeps it in memory (tests). */
  pgliteDir: string;
  blobDir: string;
  /** Photos in an S3-compatible object store (BLOB_STORE_URL) instead of `blobDir`. */
  objectStore?: S3StoreSettings;
  /** Server processes main.ts runs (WEB_CONCURRENCY); more than one needs PostgreSQL. */
  webConcurrency: number;
  /**
   * The spec's local demo: forgot-password answers with the reset token. Only ever without a mail
   * transport; see resolveDemoMode for when it is on.
   */
  demoMode: boolean;
  /**
   * DEMO_MODE=true was set. Otherwise a request that came through a proxy (forwarding headers)
   * never gets a token: a loopback server may be behind one without TRUST_PROXY saying so.
   */
  demoModeOnPurpose?: boolean;
  smtpUrl?: string;
  mailFrom: string;
  stripe: { secretKey?: string; webhookSecret?: string; publicKey?: string };
  /**
   * Test-only: where the Stripe SDK sends API calls (a local test double). Never read from the
   * environment; undefined means the real api.stripe.com.
   */
  stripeApi?: { host: string; port: number; protocol: 'http' | 'https' };
  maxUploadBytes: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /**
   * Which hops may set X-Forwarded-For/-Proto/-Host: false (none), a hop count, or proxy addresses
   * and CIDRs (proxy-addr syntax). Never `true`: that would let any client choose its own IP.
   */
  trustProxy: false | number | string[];
  /**
   * Connections one client address may hold open at once (MAX_CONNECTIONS_PER_ADDRESS, default
   * 64; 0: no limit). Applied only without TRUST_PROXY: behind a proxy, the proxy limits clients.
   */
  maxConnectionsPerAddress: number;
  /** Built client served by the API process; absent in API-only tests. */
  webDir?: string;
  /** Every request limit, by 'METHOD /url' (http/rate-limits.ts); tests and the load suite raise them. */
  rateLimits: RateLimitTable;
  /** Threads running the vision models (one tfjs WASM runtime each); default: one per core, at most 2. */
  visionThreads: number;
  /** libvips threads per image operation (sharp.concurrency), set once at startup and in each filter thread. */
  imageThreads: number;
  /** Background workers (analysis queue) start with the server unless a test turns them off. */
  startWorkers: boolean;
  /** Orphan blobs younger than this are never swept (default 10 minutes); crash tests shorten it. */
  sweepGraceMs?: number;
  /**
   * Test-only: storage quotas per tier in place of STORAGE_QUOTA_BYTES (src/domain/plans.ts), so a
   * test can fill one with a few small files. Never read from the environment.
   */
  storageQuotaBytes?: Partial<Record<'free' | 'basic' | 'premium' | 'ultimate', number>>;
}

export class ConfigError extends Error {}

/** Hosts that only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/**
 * Demo mode hands a reset token to whoever asks, so it must never be on by accident on a reachable
 * server: unset means on only for a loopback listener with no proxy trusted (a loopback server
 * behind nginx or Caddy is the internet's); DEMO_MODE=true is the operator's explicit choice
 * (main.ts warns loudly when the host is not loopback).
 */
export function resolveDemoMode(
  demoMode: boolean | undefined,
  host: string,
  trustProxy: Config['trustProxy'] = false,
): boolean {
  return demoMode ?? (isLoopbackHost(host) && trustProxy === false);
}

/** What main.ts logs at start about settings that are risky or leave a feature unusable. */
export function startupWarnings(config: Pick<Config, 'demoMode' | 'demoModeOnPurpose' | 'smtpUrl' | 'host'>): string[] {
  // DEMO_MODE=true answers every request with the token, through a proxy too (TRUST_PROXY does not
  // turn it off), so on loopback as well the warning is this one.
  if (config.demoMode && !config.smtpUrl && (config.demoModeOnPurpose || !isLoopbackHost(config.host))) {
    return [
      `DEMO_MODE=true while listening on ${config.host}: ANYONE who can reach this server, through a ` +
        "proxy too, can reset ANY account's password (forgot-password answers with the reset token). Use " +
        'it only on a trusted network; set SMTP_URL, or unset DEMO_MODE, before exposing the server.',
    ];
  }
  if (config.demoMode && !config.smtpUrl) {
    // fromThisMachine refuses every request that shows a proxy, but a proxy on this machine that
    // speaks HTTP/1.1 and sends no forwarding headers (nginx's WebSocket snippet) looks exactly like
    // a local browser, and nothing in the request can tell them apart: only the operator can.
    return [
      'Local demo: forgot-password shows the reset token to browsers on this machine. Before a ' +
        'reverse proxy forwards to this server, set SMTP_URL, TRUST_PROXY or DEMO_MODE=false: a proxy ' +
        'that sends no X-Forwarded-For looks like a local browser, and then anyone could reset any password.',
    ];
  }
  if (!config.demoMode && !config.smtpUrl) {
    return ['No SMTP_URL: forgot-password cannot send reset links (set SMTP_URL to enable password resets).'];
  }
  return [];
}

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isAddressOrCidr(entry: string): boolean {
  if (PROXY_NAMES.has(entry)) return true;
  const [addr, bits, ...rest] = entry.split('/');
  if (rest.length || !addr) return false;
  const family = isIP(addr);
  if (!family) return false;
  if (bits === undefined) return true;
  if (!/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}

/** TRUST_PROXY: unset/false/0 = trust nobody; a hop count; or a comma-separated address/CIDR list. */
export function parseTrustProxy(raw: string | undefined): false | number | string[] {
  const v = raw?.trim() ?? '';
  if (v === '' || ['false', '0', 'no'].includes(v.toLowerCase())) return false;
  if (['true', 'yes'].includes(v.toLowerCase())) {
    throw new ConfigError(
      'Invalid environment:\n  TRUST_PROXY: "true" would trust every hop, so any client could set its own IP ' +
        'and protocol (defeating per-IP limits). Give the number of proxies in front of Eyevu (e.g. 1) or ' +
        'their addresses (e.g. 10.0.0.5,10.1.0.0/16).',
    );
  }
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    if (hops > 10) throw new ConfigError('Invalid environment:\n  TRUST_PROXY: at most 10 proxy hops');
    return hops;
  }
  const list = v.split(',').map((x) => x.trim());
  const bad = list.filter((x) => !isAddressOrCidr(x));
  if (bad.length) {
    throw new ConfigError(
      `Invalid environment:\n  TRUST_PROXY: not a hop count, address or CIDR: ${bad.join(', ')} ` +
        '(e.g. TRUST_PROXY=1 or TRUST_PROXY=10.0.0.5,10.1.0.0/16)',
    );
  }
  return list;
}

const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const STORE_URL_EXAMPLE = 'e.g. s3://eyevu-photos?region=eu-west-1 or s3://photos/eyevu?endpoint=http://127.0.0.1:9000';

/**
 * BLOB_STORE_URL: `s3://bucket[/prefix]?endpoint=...&region=...&forcePathStyle=true|false`. A custom
 * endpoint (MinIO, R2, Ceph...) defaults to path-style addressing, which every such server accepts;
 * AWS itself to virtual-hosted. Credentials come from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY (both
 * or neither: without them the SDK's own chain, e.g. an instance role, is used).
 */
export function parseBlobStoreUrl(
  raw: string,
  aws: { accessKeyId?: string; secretAccessKey?: string; sessionToken?: string; region?: string } = {},
): S3StoreSettings {
  const fail = (why: string): never => {
    throw new ConfigError(`Invalid environment:\n  BLOB_STORE_URL: ${why} (${STORE_URL_EXAMPLE})`);
  };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail('not a URL');
  }
  if (url.protocol !== 's3:') fail(`unsupported scheme "${url.protocol}", only s3:// is`);
  if (url.username || url.password) fail('put credentials in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, not the URL');
  const bucket = url.hostname;
  if (!BUCKET_NAME.test(bucket)) fail(`"${bucket}" is not a bucket name`);
  const prefix = decodeURIComponent(url.pathname).replace(/^\/+|\/+$/g, '');
  if (prefix && prefix.split('/').some((part) => part === '' || part === '.' || part === '..'))
    fail('the prefix after the bucket has an empty, "." or ".." part');
  const known = new Set(['endpoint', 'region', 'forcePathStyle']);
  for (const name of url.searchParams.keys()) if (!known.has(name)) fail(`unknown option "${name}"`);
  const endpoint = url.searchParams.get('endpoint') ?? undefined;
  if (endpoint !== undefined) {
    let e: URL | undefined;
    try {
      e = new URL(endpoint);
    } catch {
      e = undefined;
    }
    if (!e || (e.protocol !== 'http:' && e.protocol !== 'https:')) fail('endpoint must be an http:// or https:// URL');
  }
  const style = url.searchParams.get('forcePathStyle');
  if (style !== null && style !== 'true' && style !== 'false') fail('forcePathStyle must be true or false');
  if (!!aws.accessKeyId !== !!aws.secretAccessKey) {
    throw new ConfigError(
      "Invalid environment:\n  AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY: set both (or neither, to use the SDK's own credential chain)",
    );
  }
  return {
    bucket,
    prefix: prefix ? `${prefix}/` : '',
    endpoint,
    region: url.searchParams.get('region') ?? aws.region ?? 'us-east-1',
    forcePathStyle: style === null ? endpoint !== undefined : style === 'true',
    credentials:
      aws.accessKeyId && aws.secretAccessKey
        ? { accessKeyId: aws.accessKeyId, secretAccessKey: aws.secretAccessKey, sessionToken: aws.sessionToken }
        : undefined,
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid environment:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const dataDir = path.resolve(e.DATA_DIR);
  if (e.BLOB_STORE_URL && e.BLOB_DIR) {
    throw new ConfigError('Invalid environment:\n  BLOB_DIR and BLOB_STORE_URL: set one (photos go to one store)');
  }
  if (e.WEB_CONCURRENCY > 1 && !e.DATABASE_URL) {
    throw new ConfigError(
      `Invalid environment:\n  WEB_CONCURRENCY=${e.WEB_CONCURRENCY} needs DATABASE_URL: the embedded PGlite ` +
        'database runs inside one process and cannot be shared. Set DATABASE_URL to a PostgreSQL server, or ' +
        'WEB_CONCURRENCY=1.',
    );
  }
  const trustProxy = parseTrustProxy(e.TRUST_PROXY);
  if (e.RATE_LIMITS === 'off' && (!isLoopbackHost(e.HOST) || trustProxy !== false)) {
    throw new ConfigError(
      `Invalid environment:\n  RATE_LIMITS=off is for load tests on this machine and needs a loopback HOST ` +
        `(127.0.0.1, ::1 or localhost) and no TRUST_PROXY: a server others can reach, directly or through ` +
        `a proxy, always limits requests.`,
    );
  }
  const objectStore = e.BLOB_STORE_URL
    ? parseBlobStoreUrl(e.BLOB_STORE_URL, {
        accessKeyId: e.AWS_ACCESS_KEY_ID,
        secretAccessKey: e.AWS_SECRET_ACCESS_KEY,
        sessionToken: e.AWS_SESSION_TOKEN,
        region: e.AWS_REGION ?? e.AWS_DEFAULT_REGION,
      })
    : undefined;
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    dataDir,
    databaseUrl: e.DATABASE_URL,
    databasePoolMax: e.DATABASE_POOL_MAX,
    pgliteDir: path.join(dataDir, 'db'),
    blobDir: e.BLOB_DIR ? path.resolve(e.BLOB_DIR) : path.join(dataDir, 'blobs'),
    objectStore,
    webConcurrency: e.WEB_CONCURRENCY,
    demoMode: resolveDemoMode(e.DEMO_MODE, e.HOST, trustProxy),
    demoModeOnPurpose: e.DEMO_MODE === true,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    stripe: {
      secretKey: e.STRIPE_SECRET_KEY,
      webhookSecret: e.STRIPE_WEBHOOK_SECRET,
      publicKey: e.VITE_STRIPE_PUBLIC_KEY,
    },
    maxUploadBytes: Math.round(e.MAX_UPLOAD_MB * 1024 * 1024),
    logLevel: e.LOG_LEVEL,
    trustProxy,
    maxConnectionsPerAddress: e.MAX_CONNECTIONS_PER_ADDRESS,
    webDir: path.resolve('dist/web'),
    rateLimits: e.RATE_LIMITS === 'off' ? {} : DEFAULT_RATE_LIMITS,
    visionThreads: e.VISION_THREADS ?? Math.max(1, Math.min(2, os.availableParallelism())),
    imageThreads: e.IMAGE_THREADS ?? DEFAULT_IMAGE_THREADS,
    startWorkers: true,
  };
}
