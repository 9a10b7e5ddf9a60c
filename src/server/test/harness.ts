import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { buildApp } from '../app.js';
import { loadConfig, type Config } from '../config.js';
import { openDatabase, type Database } from '../db/client.js';

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
  await admin.query(`create database ${name}`);
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
  const database = await openDatabase({ pgliteDir: 'memory://' });
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
    cleanup: () => rmSync(dataDir, { recursive: true, force: true }),
  };
}

export interface TestApp {
  app: FastifyInstance;
  config: Config;
  database: TestDatabase;
  close(): Promise<void>;
}

/** Boots the real app on a fresh database. Call `close` in afterAll. */
export async function createTestApp(overrides: Partial<Config> = {}): Promise<TestApp> {
  const database = await createTestDatabase();
  const config = testConfig(overrides);
  const app = await buildApp(config, { database });
  await app.ready();
  return {
    app,
    config,
    database,
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
