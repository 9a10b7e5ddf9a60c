import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app';
import { API_CACHE_CONTROL } from '../http/security-headers';
import { SESSION_COOKIE } from '../http/session';
import { hashToken } from '../lib/tokens';
import { createTestDatabase, signUp, testConfig, type TestDatabase } from '../test/harness';

/**
 * Deny by default means by the route a request reaches, not by how its path is spelled: the router
 * decodes escapes, so '/%61pi/...' runs the handler of '/api/...'. A private handler that reads the
 * session itself (instead of `userOf`, which throws) stands in for the next endpoint someone adds.
 */
let database: TestDatabase;
let app: FastifyInstance;
const config = testConfig();

beforeAll(async () => {
  database = await createTestDatabase();
  app = await buildApp(config, { database });
  app.get('/api/gate-probe', async (request) => ({ userId: request.sessionUser?.id ?? null }));
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await database?.destroy();
  config.cleanup();
});

const SPELLINGS = ['/%61pi/gate-probe', '/%61%70%69/gate-probe', '/api/gate%2Dprobe', '/ap%69/gate-probe'];

describe('trust: the auth gate and an escaped path', () => {
  it('every spelling of a private path is refused signed out, before its handler runs', async () => {
    expect((await app.inject({ url: '/api/gate-probe' })).statusCode).toBe(401);
    for (const url of SPELLINGS) {
      const res = await app.inject({ url });
      expect(res.statusCode, url).toBe(401);
      expect(res.json().message, url).toBe('Please sign in to continue.');
      expect(res.headers['cache-control'], url).toBe(API_CACHE_CONTROL);
    }
  });

  it('signed in, every spelling is the same session and an API answer (private, no-store)', async () => {
    const { cookie, user } = await signUp(app);
    for (const url of ['/api/gate-probe', ...SPELLINGS]) {
      const res = await app.inject({ url, headers: { cookie } });
      expect(res.statusCode, url).toBe(200);
      expect(res.json(), url).toEqual({ userId: user.id });
      expect(res.headers['cache-control'], url).toBe(API_CACHE_CONTROL);
    }
    // A real endpoint through an escaped path answers as it does through its own.
    const summary = await app.inject({ url: '/%61pi/photos/summary', headers: { cookie } });
    expect(summary.statusCode).toBe(200);
    expect(summary.json()).toEqual((await app.inject({ url: '/api/photos/summary', headers: { cookie } })).json());
  });

  it('the auth routes read the session from the database under every spelling, never from the cache', async () => {
    const { cookie } = await signUp(app);
    const id = hashToken(cookie.slice(`${SESSION_COOKIE}=`.length));
    // Cached by an ordinary request; then the session ends where the cache cannot hear it (another
    // process whose logout event was lost, or a row removed by hand).
    expect((await app.inject({ url: '/api/photos/summary', headers: { cookie } })).statusCode).toBe(200);
    await database.db.execute(sql`delete from sessions where id = ${id}`);
    for (const url of ['/api/auth/user', '/%61pi/auth/user', '/api/%61uth/user', '/api/auth/%75ser']) {
      // Still cached here, so only the route's own rule sends this request to the database.
      expect(app.sessionCache.get(id), url).toBeDefined();
      const res = await app.inject({ url, headers: { cookie } });
      expect(res.statusCode, url).toBe(401);
      expect(res.json().message, url).toBe('Please sign in to continue.');
    }
  });
});
