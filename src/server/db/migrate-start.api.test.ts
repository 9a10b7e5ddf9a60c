import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { buildApp } from '../app';
import { signUp, testClock, testConfig, testDbKind } from '../test/harness';
import { postPhotos } from '../test/multipart';
import { migrationsFolder, readJournal } from '../test/migrations-folder';
import { emptyDatabase } from '../test/empty-database';
import { openDatabase, type Database } from './client';

/**
 * What a start does with a database its migrations do not simply extend: one a later release
 * migrated (a rollback), one lacking a migration of ours under later-dated ones, and a migration
 * that fails halfway. On both databases, each from empty.
 */

/** Each start on an on-disk PGlite runs initdb or recovery and VACUUM ANALYZE: seconds apiece on a busy machine. */
const OPENS_TIMEOUT_MS = 300_000;

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** Opens `where` with a migrations folder of `count` of ours (all by default) and `extra` after them. */
async function openWith(
  where: { databaseUrl?: string; pgliteDir: string },
  extra: Array<{ tag: string; sql: string; when?: number }> = [],
  opts: { tags?: string[]; onWarning?: (m: string) => void } = {},
): Promise<Database> {
  const folder = migrationsFolder(opts.tags ?? readJournal().entries.length, extra);
  try {
    return await openDatabase({ ...where, migrationsFolder: folder.dir, onWarning: opts.onWarning ?? (() => {}) });
  } finally {
    folder.cleanup();
  }
}

async function one<T>(database: Database, query: ReturnType<typeof sql>): Promise<T> {
  const result = (await database.db.execute(query)) as { rows: T[] };
  return result.rows[0]!;
}

const column = (database: Database, table: string, name: string) =>
  one<{ n: number }>(
    database,
    sql`select count(*)::int as n from information_schema.columns where table_name = ${table} and column_name = ${name}`,
  ).then((r) => r.n === 1);

const ours = readJournal().entries;

const png = () =>
  sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 20, g: 120, b: 60 } } })
    .png()
    .toBuffer();

describe(`a start on a database its migrations do not simply extend (${testDbKind})`, () => {
  it(
    'starts on a database a later release migrated (a rollback), warning that it does',
    async () => {
      const where = await emptyDatabase('migstart', cleanups);
      const later = [{ tag: '0099_later_release', sql: 'ALTER TABLE "albums" ADD COLUMN "cover_photo_id" uuid;' }];
      await (await openWith(where, later)).close();

      const warnings: string[] = [];
      const database = await openWith(where, [], { onWarning: (m) => warnings.push(m) });
      try {
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toMatch(/has 1 migration\(s\) this release does not know .*a later release migrated it/);
        // The previous release's writes still work on the newer schema.
        const user = randomUUID();
        await database.db.execute(sql`
        insert into users (id, email, password_hash, first_name, last_name) values (${user}, 'r@example.com', 'x', 'R', 'B')`);
        await database.db.execute(sql`insert into albums (user_id, name) values (${user}, 'Kept')`);
        expect(await column(database, 'albums', 'cover_photo_id')).toBe(true);
      } finally {
        await database.close();
      }
      // The later release, started again, finds its migration applied and runs nothing twice.
      const again = await openWith(where, later);
      try {
        const runs = await one<{ n: number }>(again, sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
        expect(runs.n).toBe(ours.length + 1);
      } finally {
        await again.close();
      }
    },
    OPENS_TIMEOUT_MS,
  );

  it(
    'applies a migration of ours merged after a later-dated one was released (drizzle skipped it for good)',
    async () => {
      // main as it was between merging 0003_find and 0002_manage (dated before it), then upgraded.
      const where = await emptyDatabase('migstart', cleanups);
      await (await openWith(where, [], { tags: ['0000_init', '0001_trust', '0003_find'] })).close();
      await (
        await openWith(where, [], { tags: ours.filter((e) => e.tag !== '0002_manage').map((e) => e.tag) })
      ).close();

      const warnings: string[] = [];
      const database = await openWith(where, [], { onWarning: (m) => warnings.push(m) });
      const config = testConfig();
      const app = await buildApp(config, { database, now: testClock().now });
      try {
        expect(await column(database, 'photos', 'favorite')).toBe(true);
        const { cookie } = await signUp(app);
        const upload = await postPhotos(app, cookie, [{ name: 'late.png', bytes: await png(), type: 'image/png' }]);
        expect(upload.statusCode, upload.body).toBe(201);
        const page = await app.inject({ method: 'GET', url: '/api/photos?limit=10', headers: { cookie } });
        expect(page.statusCode, page.body).toBe(200);
        expect(page.json().items.map((p: { name: string; favorite: boolean }) => [p.name, p.favorite])).toContainEqual([
          'late',
          false,
        ]);
        expect(warnings).toEqual([
          'Applying migration 0002_manage, dated before migrations the database already has: it was merged after them, and an earlier start passed it over.',
        ]);
      } finally {
        await app.close();
        await database.close();
        config.cleanup();
      }
    },
    OPENS_TIMEOUT_MS,
  );

  it(
    'rolls a failing migration back whole, frees the lock, names it, and the next start runs it again',
    async () => {
      const where = await emptyDatabase('migstart', cleanups);
      const user = randomUUID();
      const seed = await openWith(where);
      try {
        await seed.db.execute(sql`
        insert into users (id, email, password_hash, first_name, last_name) values (${user}, 'd@example.com', 'x', 'D', 'U')`);
        await seed.db.execute(sql`insert into albums (user_id, name) values (${user}, 'Trip'), (${user}, 'Trip')`);
      } finally {
        await seed.close();
      }
      // The next release: a table, then a unique index the existing duplicate rows break, then more.
      const next = [
        {
          tag: '0100_album_names_unique',
          sql:
            'CREATE TABLE "upgrade_probe" ("id" integer);--> statement-breakpoint\n' +
            'CREATE UNIQUE INDEX "albums_user_name_probe_uq" ON "albums" USING btree ("user_id", "name");',
        },
        { tag: '0101_after', sql: 'ALTER TABLE "users" ADD COLUMN "probe" text;' },
      ];

      const failed = await openWith(where, next).then(
        () => undefined,
        (err: Error) => err,
      );
      expect(failed?.message).toMatch(
        /^Database migration 0100_album_names_unique failed: could not create unique index "albums_user_name_probe_uq"/,
      );
      expect(failed?.message).toMatch(
        /None of 0100_album_names_unique to 0101_after was applied \(one transaction, rolled back\); the next start runs them again\.$/,
      );

      // Nothing of either was applied, the rows are as they were, and no lock is left held.
      const check = await openWith(where);
      try {
        expect(await one(check, sql`select to_regclass('upgrade_probe') as t`)).toEqual({ t: null });
        expect(await column(check, 'users', 'probe')).toBe(false);
        expect(await one(check, sql`select count(*)::int as n from albums where user_id = ${user}`)).toEqual({ n: 2 });
        expect(await one(check, sql`select count(*)::int as n from drizzle.__drizzle_migrations`)).toEqual({
          n: ours.length,
        });
        if (testDbKind === 'postgres') {
          expect(
            await one(
              check,
              sql`select count(*)::int as n from pg_locks where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())`,
            ),
          ).toEqual({ n: 0 });
        }
        // The operator mends the rows the migration needs.
        await check.db.execute(sql`update albums set name = 'Trip (2)' where ctid = (select min(ctid) from albums)`);
      } finally {
        await check.close();
      }

      const retried = await openWith(where, next);
      try {
        expect(await one(retried, sql`select to_regclass('upgrade_probe')::text as t`)).toEqual({ t: 'upgrade_probe' });
        expect(await column(retried, 'users', 'probe')).toBe(true);
        expect(await one(retried, sql`select count(*)::int as n from albums where user_id = ${user}`)).toEqual({
          n: 2,
        });
      } finally {
        await retried.close();
      }
    },
    OPENS_TIMEOUT_MS,
  );
});
