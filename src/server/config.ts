import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';

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
  DEMO_MODE: booleanFromEnv.default(true),
  SMTP_URL: z.string().url('SMTP_URL must be a URL such as smtp://user:pass@host:587').optional(),
  MAIL_FROM: z.string().min(3).default('Eyevu <no-reply@eyevu.local>'),
  STRIPE_SECRET_KEY: z.string().min(1).optional(),
  STRIPE_WEBHOOK_SECRET: z.string().min(1).optional(),
  VITE_STRIPE_PUBLIC_KEY: z.string().min(1).optional(),
  MAX_UPLOAD_MB: z.coerce.number().positive().max(1024).default(50),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  TRUST_PROXY: booleanFromEnv.default(false),
  VISION_THREADS: z.coerce.number().int().min(1).max(16).optional(),
});

export interface Config {
  env: 'development' | 'production' | 'test';
  port: number;
  host: string;
  dataDir: string;
  /** PostgreSQL server when set; otherwise the embedded PGlite in `<dataDir>/db`. */
  databaseUrl?: string;
  /** Where PGlite keeps its files; 'memory://' keeps it in memory (tests). */
  pgliteDir: string;
  blobDir: string;
  demoMode: boolean;
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
  trustProxy: boolean;
  /** Built client served by the API process; absent in API-only tests. */
  webDir?: string;
  rateLimits: { loginPerEmail: number; loginPerIp: number; forgotPerEmail: number; windowMs: number };
  /** Threads running the vision models (one tfjs WASM runtime each); default: one per core, at most 2. */
  visionThreads: number;
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

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid environment:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const dataDir = path.resolve(e.DATA_DIR);
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    dataDir,
    databaseUrl: e.DATABASE_URL,
    pgliteDir: path.join(dataDir, 'db'),
    blobDir: e.BLOB_DIR ? path.resolve(e.BLOB_DIR) : path.join(dataDir, 'blobs'),
    demoMode: e.DEMO_MODE,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    stripe: {
      secretKey: e.STRIPE_SECRET_KEY,
      webhookSecret: e.STRIPE_WEBHOOK_SECRET,
      publicKey: e.VITE_STRIPE_PUBLIC_KEY,
    },
    maxUploadBytes: Math.round(e.MAX_UPLOAD_MB * 1024 * 1024),
    logLevel: e.LOG_LEVEL,
    trustProxy: e.TRUST_PROXY,
    webDir: path.resolve('dist/web'),
    rateLimits: { loginPerEmail: 10, loginPerIp: 50, forgotPerEmail: 5, windowMs: 15 * 60 * 1000 },
    visionThreads: e.VISION_THREADS ?? Math.max(1, Math.min(2, os.availableParallelism())),
    startWorkers: true,
  };
}
