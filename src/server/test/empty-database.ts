import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { buildApp } from '../app';
import type { Database } from '../db/client';
import { testClock, testConfig, testDbKind } from './harness';

/**
 * Where a database with nothing in it lives, for tests of what a start does to a database (its
 * migrations): a PGlite folder, kept across opens, or a new PostgreSQL database beside the test
 * one. Its removal is pushed onto `cleanups`; the migrated template the other tests share is never
 * used. `sqlAscii` (PostgreSQL only): the encoding an `initdb` under the C locale gives a cluster
 * when it is not told one, which the releases before ran on.
 */
export async function emptyDatabase(
  prefix: string,
  cleanups: Array<() => Promise<void> | void>,
  { sqlAscii = false }: { sqlAscii?: boolean } = {},
): Promise<{ databaseUrl?: string; pgliteDir: string }> {
  if (testDbKind === 'pglite') {
    if (sqlAscii) throw new Error('PGlite databases are UTF8 only');
    const dir = mkdtempSync(path.join(os.tmpdir(), `eyevu-${prefix}-`));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    return { pgliteDir: dir };
  }
  const adminUrl = process.env.TEST_DATABASE_URL!;
  const name = `eyevu_${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(
    `create database ${name}${sqlAscii ? " encoding 'SQL_ASCII' lc_collate 'C' lc_ctype 'C' template template0" : ''}`,
  );
  await admin.end();
  cleanups.push(async () => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    await c.query(`drop database if exists ${name} with (force)`);
    await c.end();
  });
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { databaseUrl: url.toString(), pgliteDir: '' };
}

/** The app on `database` (a database a test opened itself), closed with it by `cleanups`. */
export async function appOn(database: Database, cleanups: Array<() => Promise<void> | void>) {
  const config = testConfig();
  const app = await buildApp(config, { database, now: testClock().now });
  cleanups.push(async () => {
    await app.close();
    await database.close();
    config.cleanup();
  });
  await app.ready();
  return app;
}
