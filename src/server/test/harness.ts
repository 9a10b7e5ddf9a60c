import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { SIMULATED_ADS } from '@domain/games/scoring';
import { buildApp, type BuildOptions } from '../app';
import { loadConfig, type Config } from '../config';
import { openDatabase, type Database } from '../db/client';

/**
 * API tests run against PGlite by default and against a real PostgreSQL server when the test
 * runner sets EYEVU_TEST_DB=postgres (with TEST_DATABASE_URL): each test file then gets its own
 * freshly created database, so files never see each other's rows.
 */
export const testDbKind = process.env.EYEVU_TEST_DB === 'postgres' ? 'postgres' : 'pglite';

async function createPostgresDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('EYEVU_TEST_DB=postgres needs TEST_DATABASE_URL');
  const name = `eyevu_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const template = provided('postgresTemplate');
  await admin.query(template ? `create database ${name} template ${template}` : `create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/** What vitest's global setup made (migrated templates); nothing outside vitest (benchmarks use the harness). */
function provided(key: 'pgliteTemplate' | 'postgresTemplate'): string | undefined {
  try {
    return inject(key);
  } catch {
    return undefined;
  }
}

export interface TestDatabase extends Database {
  url?: string;
  destroy(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  if (testDbKind === 'postgres') {
    const { url, drop } = await createPostgresDatabase();
    const database = await openDatabase({ databaseUrl: url, pgliteDir: '' });
    return {
      ...database,
      url,
      destroy: async () => {
        await database.close();
        await drop();
      },
    };
  }
  const database = await openDatabase({ pgliteDir: 'memory://', pgliteTemplate: provided('pgliteTemplate') });
  return { ...database, destroy: () => database.close() };
}

export function testConfig(overrides: Partial<Config> = {}): Config & { cleanup: () => void } {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'eyevu-test-'));
  // Loopback, as tests never listen elsewhere: the spec's local demo (reset token in the answer) is on.
  const base = loadConfig({ NODE_ENV: 'test', DATA_DIR: dataDir, LOG_LEVEL: 'silent', HOST: '127.0.0.1' });
  return {
    ...base,
    webDir: undefined,
    startWorkers: false,
    ...overrides,
    // Retried: a file system call the closed app started may still land in the folder being removed
    // (ENOTEMPTY on its blobs folder, once in CI).
    cleanup: () => rmSync(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 }),
  };
}

/** The server clock of a test app: it stands still until the test moves it (no sleeping, no racing). */
export interface TestClock {
  now(): Date;
  advance(ms: number): void;
}

export function testClock(startMs = Date.now()): TestClock {
  let at = startMs;
  return {
    now: () => new Date(at),
    advance(ms) {
      at += ms;
    },
  };
}

const clocks = new WeakMap<FastifyInstance, TestClock>();

/** The clock of an app built by createTestApp, for helpers that are handed only the app. */
export function clockOf(app: FastifyInstance): TestClock {
  const clock = clocks.get(app);
  if (!clock) throw new Error('not an app built by createTestApp');
  return clock;
}

export interface TestApp {
  app: FastifyInstance;
  /** `cleanup` removes its data folder (`close` does it; a test closing the pieces itself calls it). */
  config: Config & { cleanup: () => void };
  database: TestDatabase;
  clock: TestClock;
  close(): Promise<void>;
}

/** Boots the real app on a fresh database, its clock a TestClock. Call `close` in afterAll. */
export async function createTestApp(
  overrides: Partial<Config> = {},
  build: Pick<BuildOptions, 'activity' | 'analysis'> = {},
): Promise<TestApp> {
  const database = await createTestDatabase();
  const config = testConfig(overrides);
  const clock = testClock();
  const app = await buildApp(config, { ...build, database, now: clock.now });
  clocks.set(app, clock);
  await app.ready();
  return {
    app,
    config,
    database,
    clock,
    async close() {
      await app.close();
      await database.destroy();
      config.cleanup();
    },
  };
}

/** The `name=value` pair of the session cookie a response set, for the next request's header. */
export function sessionCookieFrom(res: LightMyRequestResponse): string {
  const c = res.cookies.find((x) => x.name === 'eyevu_session');
  if (!c) throw new Error(`no session cookie in response ${res.statusCode}: ${res.body}`);
  return `eyevu_session=${c.value}`;
}

let counter = 0;
/** Registers a new user and returns the cookie to act as them. */
export async function signUp(
  app: FastifyInstance,
  fields: Partial<{ email: string; firstName: string; lastName: string; password: string; timeZone: string }> = {},
) {
  counter += 1;
  const body = {
    firstName: 'Test',
    lastName: 'User',
    email: `user${counter}-${randomBytes(3).toString('hex')}@example.com`,
    password: 'secret123',
    ...fields,
  };
  const res = await app.inject({ method: 'POST', url: '/api/auth/register', payload: body });
  if (res.statusCode !== 201) throw new Error(`register failed ${res.statusCode}: ${res.body}`);
  return { cookie: sessionCookieFrom(res), user: res.json().user as { id: string; email: string }, body };
}

export interface AdBreakView {
  id: string;
  app: string;
  durationSeconds: number;
  startedAt: string;
  endsAt: string;
}

/** `POST /api/ad-breaks` as this user; throws unless it started. */
export async function startAdBreak(app: FastifyInstance, cookie: string, adApp: string): Promise<AdBreakView> {
  const res = await app.inject({ method: 'POST', url: '/api/ad-breaks', headers: { cookie }, payload: { app: adApp } });
  if (res.statusCode !== 201) throw new Error(`ad break failed ${res.statusCode}: ${res.body}`);
  return res.json() as AdBreakView;
}

/** `POST /api/activities` for an ad break (its id as Idempotency-Key), at the clock's current time. */
export function recordAdBreak(app: FastifyInstance, cookie: string, adBreakId: string, payload: object) {
  return app.inject({
    method: 'POST',
    url: '/api/activities',
    headers: { cookie, 'idempotency-key': adBreakId },
    payload,
  });
}

/**
 * A whole ad break as the client plays it: start it, let the app's clock pass the ad's duration,
 * record the activity (`adDuration` is filled in from the break). Returns the break and the answer.
 */
export async function playAdBreak(
  app: FastifyInstance,
  cookie: string,
  activity: { app: string; adDuration?: number; gameData?: object; [field: string]: unknown },
) {
  const adBreak = await startAdBreak(app, cookie, activity.app);
  clockOf(app).advance(adBreak.durationSeconds * 1000);
  const res = await recordAdBreak(app, cookie, adBreak.id, { adDuration: adBreak.durationSeconds, ...activity });
  return { adBreak, res };
}

/**
 * Ad-break ids for tests written in terms of event labels: a label names one ad break of that user,
 * started and played out (the clock moved past its end) on first use and reused afterwards, also
 * by concurrent calls; no label plays a fresh one per call. An app that is not a simulated ad gets
 * an id no break has (the activity is refused for its app first).
 */
export function adBreakIds(app: FastifyInstance) {
  const ids = new Map<string, Promise<string>>();
  return (cookie: string, adApp: string, label?: string): Promise<string> => {
    const play = async () => {
      if (!SIMULATED_ADS.some((a) => a.app === adApp)) return '00000000-0000-4000-8000-000000000000';
      const adBreak = await startAdBreak(app, cookie, adApp);
      clockOf(app).advance(adBreak.durationSeconds * 1000);
      return adBreak.id;
    };
    if (label === undefined) return play();
    const key = `${cookie}\n${label}`;
    let id = ids.get(key);
    if (!id) ids.set(key, (id = play()));
    return id;
  };
}
