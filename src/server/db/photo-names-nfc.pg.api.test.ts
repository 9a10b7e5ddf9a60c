import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { hashToken } from '../lib/tokens';
import { migrationsFolder, readJournal } from '../test/migrations-folder';
import { appOn, emptyDatabase } from '../test/empty-database';
import { openDatabase } from './client';

/**
 * Migration 0017 composes photo names with PostgreSQL's `normalize`, which refuses to run in a
 * database whose encoding is not UTF8 ('Unicode normalization can only be performed if server
 * encoding is UTF8'): a cluster made by `initdb` under the C locale is SQL_ASCII, and the release
 * before ran on it, so the upgrade's start failed there and the server never came up.
 */

const OPENS_TIMEOUT_MS = 300_000;
const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

const before0017 = readJournal().entries.findIndex((e) => e.tag === '0017_photo_names_nfc');

describe('photo names in a SQL_ASCII database (postgres)', () => {
  it(
    'the upgrade starts, leaving the names as they were (new ones arrive composed)',
    async () => {
      const where = await emptyDatabase('asciinames', cleanups, { sqlAscii: true });
      const user = randomUUID();
      const token = randomBytes(32).toString('base64url');
      const cookie = `eyevu_session=${token}`;
      const folder = migrationsFolder(before0017);
      // The release before: its migrations run here.
      const old = await openDatabase({ ...where, migrationsFolder: folder.dir }).finally(() => folder.cleanup());
      const names = ['Cafe\u0301 de Flore', 'plain harbour'];
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

      const app = await appOn(await openDatabase(where), cleanups);
      const res = await app.inject({ method: 'GET', url: '/api/photos/timeline?limit=50', headers: { cookie } });
      expect(res.statusCode, res.body).toBe(200);
      expect((res.json().items as Array<{ name: string }>).map((p) => p.name).sort()).toEqual([...names].sort());
    },
    OPENS_TIMEOUT_MS,
  );
});
