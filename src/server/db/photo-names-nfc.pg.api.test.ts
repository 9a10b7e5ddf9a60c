import { afterAll, describe, expect, it } from 'vitest';
import { accountBefore, appOn, emptyDatabase } from '../test/empty-database';
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

describe('photo names in a SQL_ASCII database (postgres)', () => {
  it(
    'the upgrade starts, leaving the names as they were (new ones arrive composed)',
    async () => {
      const where = await emptyDatabase('asciinames', cleanups, { sqlAscii: true });
      const names = ['Cafe\u0301 de Flore', 'plain harbour'];
      const cookie = await accountBefore('0017_photo_names_nfc', where, names);

      const app = await appOn(await openDatabase(where), cleanups);
      const res = await app.inject({ method: 'GET', url: '/api/photos/timeline?limit=50', headers: { cookie } });
      expect(res.statusCode, res.body).toBe(200);
      expect((res.json().items as Array<{ name: string }>).map((p) => p.name).sort()).toEqual([...names].sort());
    },
    OPENS_TIMEOUT_MS,
  );
});
