import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { buildApp } from '../app';
import { openDatabase, type Database } from '../db/client';
import { hashToken } from '../lib/tokens';
import { testClock, testConfig, testDbKind } from './harness';
import { migrationsFolder, readJournal } from './migrations-folder';

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

/**
 * A database as the release before `tag` left it: its migrations run, then one signed-in account
 * with a photo per name (rows only, no files), inserted as that release's schema had them.
 * Answers the account's session cookie, for the app a test then starts on it (`appOn`).
 */
export async function accountBefore(
  tag: string,
  where: { databaseUrl?: string; pgliteDir: string },
  names: readonly string[],
): Promise<string> {
  const user = randomUUID();
  const token = randomBytes(32).toString('base64url');
  const folder = migrationsFolder(readJournal().entries.findIndex((e) => e.tag === tag));
  const old = await openDatabase({ ...where, migrationsFolder: folder.dir }).finally(() => folder.cleanup());
  try {
    await old.db.execute(sql`
      insert into users (id, email, password_hash, first_name, last_name)
        values (${user}, 'ada@example.com', 'scrypt$x', 'Ada', 'Lovelace')`);
    await old.db.execute(sql`
      insert into sessions (id, user_id, expires_at) values (${hashToken(token)}, ${user}, now() + interval '20 days')`);
    for (const [i, name] of names.entries()) {
      const key = `${i}`.repeat(64);
      await old.db.execute(sql`
        insert into photos (user_id, name, mime, size, width, height, original_key, preview_key, thumbnail_key)
          values (${user}, ${name}, 'image/jpeg', 10, 4, 3, ${key}, ${key}, ${key})`);
    }
  } finally {
    await old.close();
  }
  return `eyevu_session=${token}`;
}
