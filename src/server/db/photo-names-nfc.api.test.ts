import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { hashToken } from '../lib/tokens';
import { testDbKind } from '../test/harness';
import { migrationsFolder, readJournal } from '../test/migrations-folder';
import { appOn, emptyDatabase } from '../test/empty-database';
import { openDatabase } from './client';

/**
 * Names stored decomposed before names were composed on arrival (a file name from macOS: 'İ' as
 * I + U+0307) were found by 'İstanbul' but not by 'istanbul'. Migration 0017 composes them. On
 * both databases.
 */

const OPENS_TIMEOUT_MS = 300_000;
const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

const before0017 = readJournal().entries.findIndex((e) => e.tag === '0017_photo_names_nfc');

describe(`photo names stored decomposed (${testDbKind})`, () => {
  it(
    'are composed by the upgrade, so every spelling of the query finds them, and look the same',
    async () => {
      const where = await emptyDatabase('nfcnames', cleanups);
      const user = randomUUID();
      const token = randomBytes(32).toString('base64url');
      const cookie = `eyevu_session=${token}`;
      const folder = migrationsFolder(before0017);
      const old = await openDatabase({ ...where, migrationsFolder: folder.dir }).finally(() => folder.cleanup());
      try {
        await old.db.execute(sql`
          insert into users (id, email, password_hash, first_name, last_name)
            values (${user}, 'ada@example.com', 'scrypt$x', 'Ada', 'Lovelace')`);
        await old.db.execute(sql`
          insert into sessions (id, user_id, expires_at) values (${hashToken(token)}, ${user}, now() + interval '20 days')`);
        const names = ['I\u0307stanbul night', 'Cafe\u0301 de Flore', 'plain harbour'];
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
      const search = async (q: string) => {
        const res = await app.inject({
          method: 'GET',
          url: `/api/photos/timeline?limit=50&q=${encodeURIComponent(q)}`,
          headers: { cookie },
        });
        expect(res.statusCode, res.body).toBe(200);
        return (res.json().items as Array<{ name: string }>).map((p) => p.name);
      };
      // Stored as it arrived, the name's first word was 'i' + U+0307 + 'stanbul': 'istanbul' found nothing.
      expect(await search('istanbul')).toEqual(['\u0130stanbul night']);
      expect(await search('İstanbul')).toEqual(['\u0130stanbul night']);
      expect(await search('café')).toEqual(['Caf\u00e9 de Flore']);
      expect(await search('harbour')).toEqual(['plain harbour']);
    },
    OPENS_TIMEOUT_MS,
  );
});
