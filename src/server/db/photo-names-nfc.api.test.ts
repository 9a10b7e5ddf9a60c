import { afterAll, describe, expect, it } from 'vitest';
import { testDbKind } from '../test/harness';
import { accountBefore, appOn, emptyDatabase } from '../test/empty-database';
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

describe(`photo names stored decomposed (${testDbKind})`, () => {
  it(
    'are composed by the upgrade, so every spelling of the query finds them, and look the same',
    async () => {
      const where = await emptyDatabase('nfcnames', cleanups);
      const names = ['I\u0307stanbul night', 'Cafe\u0301 de Flore', 'plain harbour'];
      const cookie = await accountBefore('0017_photo_names_nfc', where, names);

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
