import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, signUp, type TestApp } from '../test/harness';

/**
 * A page cursor is the client's to send back, so it is hostile like any other value: one the server
 * never gave out is a 400 with a message, never a 500 from the database that was handed it.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

/** A cursor as the server writes them: base64url of `[timestamp, id]`. */
const cursorOf = (at: string, id = '00000000-0000-4000-8000-000000000000') =>
  Buffer.from(JSON.stringify([at, id])).toString('base64url');

/** Shaped like a timestamp, but no instant: the database refuses each of them. */
const NOT_INSTANTS = [
  '2026-13-01 00:00:00+00',
  '2026-02-30 12:00:00+00',
  '2025-02-29T12:00:00Z',
  '2026-01-01 25:00:00+00',
  '2026-01-01 00:61:00Z',
  '0000-01-01 00:00:00+00',
  '2026-01-01 00:00:00+99',
  '2026-01-01 00:00:00-16:00',
];

const LISTS = ['/api/photos?limit=2', '/api/photos/favorites?limit=2', '/api/photos/timeline?limit=2'];

describe('trust: hand-made page cursors', () => {
  it('a cursor holding a date that does not exist is a 400 with a message on every paged list', async () => {
    const { cookie } = await signUp(t.app);
    for (const list of LISTS) {
      for (const at of NOT_INSTANTS) {
        const res = await t.app.inject({ url: `${list}&cursor=${cursorOf(at)}`, headers: { cookie } });
        expect(res.statusCode, `${list} ${at}`).toBe(400);
        expect(res.json().message, `${list} ${at}`).toMatch(/^cursor: /);
      }
    }
  });

  it('the cursors the lists give out still page, and real dates in any offset are taken', async () => {
    const { cookie } = await signUp(t.app);
    for (const list of ['/api/photos?limit=1', '/api/photos/timeline?limit=1']) {
      const first = (await t.app.inject({ url: list, headers: { cookie } })).json();
      expect(first.nextCursor, list).toEqual(expect.any(String));
      const next = await t.app.inject({ url: `${list}&cursor=${first.nextCursor}`, headers: { cookie } });
      expect(next.statusCode, list).toBe(200);
      expect(next.json().items[0].id).not.toBe(first.items[0].id);
    }
    for (const at of [
      '2024-02-29 23:59:59.999999+00',
      '2026-12-31T23:59:59Z',
      '2026-06-01 12:00:00+05:30',
      '1970-01-01 00:00:00-12',
    ]) {
      for (const list of LISTS) {
        const res = await t.app.inject({ url: `${list}&cursor=${cursorOf(at)}`, headers: { cookie } });
        expect(res.statusCode, `${list} ${at}`).toBe(200);
      }
    }
  });
});
