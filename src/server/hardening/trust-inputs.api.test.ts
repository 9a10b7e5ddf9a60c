import { sql, type SQL } from 'drizzle-orm';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REWARD_POINTS } from '@domain/rewards';
import { NUL_IN_JSON_MESSAGE, jsonHasNul } from '../http/json-body';
import { MAX_FILES_PER_REQUEST, TOO_MANY_PARTS_MESSAGE } from '../features/photos/photos.routes';
import { buildApp, IDLE_CONNECTION_MS, KEEP_ALIVE_MS, REQUEST_TIMEOUT_MS } from '../app';
import { createTestDatabase, testConfig, type TestApp } from '../test/harness';
import { appWithOneUser, countOf, jpeg, multipart } from './support';

/**
 * Round two of the attacker's audit: text no column can hold, and an upload past its parser
 * limits. Each was a 500 (or a 413 over photos already stored) before its fix.
 */
let t: TestApp;
let cookie: string;
let userId: string;
beforeAll(async () => ({ t, cookie, userId } = await appWithOneUser()));
afterAll(() => t?.close());

const count = (query: SQL) => countOf(t.database.db, query);
const post = (url: string, payload: object, headers: Record<string, string> = { cookie }) =>
  t.app.inject({ method: 'POST', url, headers, payload });
const upload = (m: ReturnType<typeof multipart>) =>
  t.app.inject({ method: 'POST', url: '/api/photos', headers: { cookie, ...m.headers }, payload: m.payload });
const firstPhotoId = async () =>
  ((await t.app.inject({ url: '/api/photos', headers: { cookie } })).json() as Array<{ id: string }>)[0]!.id;

/** A JPEG APP1 segment whose EXIF IFD0 has one ASCII entry, Make, written byte for byte as given. */
function exifMake(make: string): Buffer {
  const text = Buffer.from(`${make}\0`, 'latin1');
  const tiff = Buffer.alloc(26 + text.length);
  tiff.write('II', 0, 'latin1');
  tiff.writeUInt16LE(42, 2);
  tiff.writeUInt32LE(8, 4); // IFD0 right after the header
  tiff.writeUInt16LE(1, 8); // one entry
  tiff.writeUInt16LE(0x010f, 10); // Make
  tiff.writeUInt16LE(2, 12); // ASCII
  tiff.writeUInt32LE(text.length, 14);
  tiff.writeUInt32LE(26, 18); // its text after the IFD
  tiff.writeUInt32LE(0, 22); // no next IFD
  text.copy(tiff, 26);
  const body = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff]);
  const marker = Buffer.alloc(4);
  marker.writeUInt16BE(0xffe1, 0);
  marker.writeUInt16BE(body.length + 2, 2);
  return Buffer.concat([marker, body]);
}

describe('trust: a NUL in request text', () => {
  it('JSON escapes are read in pairs: only an unescaped \\u0000 is a NUL', () => {
    expect(jsonHasNul('{"a":"x\\u0000"}')).toBe(true);
    expect(jsonHasNul('{"a\\u0000":1}')).toBe(true);
    expect(jsonHasNul('{"a":"\\\\\\u0000"}')).toBe(true);
    expect(jsonHasNul('{"a":"\\\\u0000"}')).toBe(false);
    expect(jsonHasNul('{"a":"\\u00001"}')).toBe(true);
    expect(jsonHasNul('{"a":"\\u0001\\n"}')).toBe(false);
    expect(jsonHasNul('{}')).toBe(false);
  });

  it('is a 400 with a message on every JSON route, before anything is stored', async () => {
    const photoId = await firstPhotoId();
    const albumsBefore = await count(sql`select count(*)::int n from albums where user_id = ${userId}`);
    const ledgerBefore = await count(sql`select count(*)::int n from points_ledger where user_id = ${userId}`);
    const cases: Array<[string, object, Record<string, string>?]> = [
      ['/api/albums', { name: 'Trip\u0000', photoIds: [photoId] }],
      ['/api/albums', { name: 'Trip', description: 'x\u0000y', photoIds: [photoId] }],
      ['/api/activities', { app: 'YouTube', adDuration: 30, eventId: 'x\u0000y' }],
      ['/api/rewards/record', { type: 'points', message: 'hi\u0000' }],
      [
        '/api/auth/register',
        { firstName: 'A\u0000', lastName: 'B', email: 'nul-name@example.com', password: 'secret123' },
        {},
      ],
    ];
    for (const [url, body, headers] of cases) {
      const res = await post(url, body, headers);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().message, url).toBe(NUL_IN_JSON_MESSAGE);
    }
    expect(await count(sql`select count(*)::int n from albums where user_id = ${userId}`)).toBe(albumsBefore);
    expect(await count(sql`select count(*)::int n from points_ledger where user_id = ${userId}`)).toBe(ledgerBefore);
    expect(await count(sql`select count(*)::int n from users where email = 'nul-name@example.com'`)).toBe(0);

    // The six characters '\u0000' are text like any other.
    const res = await post('/api/albums', { name: 'Backslash \\u0000', photoIds: [photoId] });
    expect(res.statusCode).toBe(201);
    expect(res.json().name).toBe('Backslash \\u0000');
  });

  it('an upload whose file name holds control characters is stored under a clean name', async () => {
    const plain = await upload(multipart([{ name: 'ev\u0000il\u0007.jpg', bytes: await jpeg(7001) }]));
    expect(plain.statusCode).toBe(201);
    expect(plain.json().results[0].photo.name).toBe('evil');

    // RFC 5987 spelling: the parser decodes %00 itself.
    const boundary = 'eyevuTrustInputs';
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="photos"; filename*=UTF-8''ha%00ck.jpg\r\n` +
          'Content-Type: image/jpeg\r\n\r\n',
      ),
      await jpeg(7002),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const encoded = await t.app.inject({
      method: 'POST',
      url: '/api/photos',
      headers: { cookie, 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: body,
    });
    expect(encoded.statusCode).toBe(201);
    expect(encoded.json().results[0].photo.name).toBe('hack');
  });

  it('a photo whose EXIF text holds a NUL is stored, the text cut where EXIF says it ends', async () => {
    const base = await jpeg(7003);
    // The APP1 block goes right after the JPEG's start-of-image marker.
    const jpg = Buffer.concat([base.subarray(0, 2), exifMake('Ca\0non'), base.subarray(2)]);
    const res = await upload(multipart([{ name: 'camera.jpg', bytes: jpg }]));
    expect(res.statusCode).toBe(201);
    const info = await t.app.inject({ url: `/api/photos/${res.json().results[0].photo.id}/info`, headers: { cookie } });
    expect(info.statusCode).toBe(200);
    expect(info.json().camera).toBe('Ca');
  });

  it('a photo whose long EXIF text ends in an emoji is stored, the text cut between characters', async () => {
    // Cut at 200 UTF-16 units between the two halves of the emoji, the lone half reached jsonb as
    // the escape of a high surrogate alone, which PostgreSQL refuses: the upload answered 500.
    const base = await jpeg(7004);
    const make = Buffer.from(`${'a'.repeat(199)}😀 camera`, 'utf8').toString('latin1');
    const jpg = Buffer.concat([base.subarray(0, 2), exifMake(make), base.subarray(2)]);
    const res = await upload(multipart([{ name: 'emoji-camera.jpg', bytes: jpg }]));
    expect(res.statusCode, res.body).toBe(201);
    const info = await t.app.inject({ url: `/api/photos/${res.json().results[0].photo.id}/info`, headers: { cookie } });
    expect(info.statusCode).toBe(200);
    expect(info.json().camera).toMatch(/^a{199}$/);
  });
});

describe('trust: an upload past its parser limits', () => {
  it(`${MAX_FILES_PER_REQUEST + 1} files: the first ${MAX_FILES_PER_REQUEST} are stored, answered and rewarded; the rest refused in the results`, async () => {
    const photosBefore = await count(sql`select count(*)::int n from photos where user_id = ${userId}`);
    const uploadsBefore = await count(
      sql`select count(*)::int n from points_ledger where user_id = ${userId} and source = 'upload' and points > 0`,
    );
    const files = await Promise.all(
      Array.from({ length: MAX_FILES_PER_REQUEST + 1 }, async (_, i) => ({
        name: `batch-${i}.jpg`,
        bytes: await jpeg(7100 + i),
      })),
    );
    const res = await upload(multipart(files));
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.uploaded).toBe(MAX_FILES_PER_REQUEST);
    expect(body.results).toHaveLength(MAX_FILES_PER_REQUEST + 1);
    expect(body.results.at(-1)).toMatchObject({ ok: false, status: 413, message: TOO_MANY_PARTS_MESSAGE });
    expect(body.message).toContain(TOO_MANY_PARTS_MESSAGE);
    expect(body.reward.rewardedPhotos).toBe(MAX_FILES_PER_REQUEST);
    expect(body.reward.points).toBeGreaterThanOrEqual(MAX_FILES_PER_REQUEST * REWARD_POINTS.upload);
    expect(await count(sql`select count(*)::int n from photos where user_id = ${userId}`)).toBe(
      photosBefore + MAX_FILES_PER_REQUEST,
    );
    expect(
      await count(
        sql`select count(*)::int n from points_ledger where user_id = ${userId} and source = 'upload' and points > 0`,
      ),
    ).toBe(uploadsBefore + MAX_FILES_PER_REQUEST);
  });

  it('more text fields than an upload takes, before any file: 413 with the message, nothing stored', async () => {
    const photosBefore = await count(sql`select count(*)::int n from photos where user_id = ${userId}`);
    const boundary = 'eyevuFields';
    const fields = Array.from(
      { length: 12 },
      (_, i) => `--${boundary}\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\nx\r\n`,
    ).join('');
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/photos',
      headers: { cookie, 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: `${fields}--${boundary}--\r\n`,
    });
    expect(res.statusCode).toBe(413);
    expect(res.json().message).toBe(TOO_MANY_PARTS_MESSAGE);
    expect(await count(sql`select count(*)::int n from photos where user_id = ${userId}`)).toBe(photosBefore);
  });
});

describe('trust: a body declared and never sent', () => {
  it('the server bounds silent connections and slow requests (Fastify bounds neither by default)', () => {
    expect(t.app.server.timeout).toBe(IDLE_CONNECTION_MS);
    expect(t.app.server.requestTimeout).toBe(REQUEST_TIMEOUT_MS);
  });

  it('an idle kept-alive connection is announced, and closed, well before the silent-connection limit', async () => {
    const database = await createTestDatabase();
    const config = testConfig();
    const app = await buildApp(config, { database });
    try {
      await app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = app.server.address() as net.AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      await res.arrayBuffer();
      // A client trusting a hint longer than the limit reuses a socket the server is destroying.
      const hinted = Number(/timeout=(\d+)/.exec(res.headers.get('keep-alive') ?? '')?.[1]) * 1000;
      expect(hinted).toBe(KEEP_ALIVE_MS);
      expect(app.server.keepAliveTimeout).toBe(KEEP_ALIVE_MS);
      expect(hinted).toBeLessThanOrEqual(IDLE_CONNECTION_MS / 2);
    } finally {
      await app.close();
      await database.destroy();
      config.cleanup();
    }
  });

  it('a sign-in whose body stops arriving is dropped once its connection has been silent that long', async () => {
    const database = await createTestDatabase();
    const config = testConfig();
    const app = await buildApp(config, { database, idleConnectionMs: 200 });
    try {
      await app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = app.server.address() as net.AddressInfo;
      const socket = net.connect(port, '127.0.0.1');
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      socket.on('error', () => undefined);
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      // 10 of the 1,000 bytes declared, then nothing: without a bound the connection stays open.
      socket.write(
        `POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
          'Content-Length: 1000\r\n\r\n{"email":"',
      );
      await closed;
      expect(socket.destroyed).toBe(true);
    } finally {
      await app.close();
      await database.destroy();
      config.cleanup();
    }
  });
});
