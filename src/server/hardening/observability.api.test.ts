import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loginBody, registerBody } from '@contract/auth';
import { buildApp } from '../app';
import { createTestDatabase, sessionCookieFrom, testConfig, type TestDatabase } from '../test/harness';
import type { FastifyInstance } from 'fastify';
import { recordFigure } from './support';

/**
 * structured JSON logs with request id, user id and duration, and never a password,
 * token or cookie; /healthz and /readyz; an OpenAPI document generated from the zod contract.
 */
const lines: string[] = [];
let app: FastifyInstance;
let database: TestDatabase;
let cleanup: () => void;
beforeAll(async () => {
  database = await createTestDatabase();
  const config = testConfig();
  cleanup = config.cleanup;
  app = await buildApp(config, { database, logStream: { write: (l: string) => void lines.push(l) } });
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await database?.destroy();
  cleanup?.();
});

describe('structured logs', () => {
  it('JSON lines with request id, user id and duration; no password, token or cookie', async () => {
    const password = 'Sup3r-Secret-pw!';
    const email = 'logs@example.com';
    const reg = await app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { firstName: 'Log', lastName: 'Check', email, password },
    });
    expect(reg.statusCode).toBe(201);
    const cookie = sessionCookieFrom(reg);
    const token = cookie.split('=')[1]!;
    const login = await app.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { cookie },
      payload: { email, password },
    });
    const cookie2 = sessionCookieFrom(login);
    await app.inject({ url: '/api/photos', headers: { cookie: cookie2, authorization: 'Bearer abc.def.ghi' } });
    const forgot = await app.inject({ method: 'POST', url: '/api/auth/forgot-password', payload: { email } });
    const resetToken = forgot.json().resetToken as string;
    await app.inject({
      method: 'POST',
      url: '/api/auth/reset-password',
      payload: { token: resetToken, password: 'An0ther-pw!' },
    });
    await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password: 'wrong-password-123' } });
    const userId = reg.json().user.id as string;

    expect(lines.length).toBeGreaterThan(10);
    const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const completed = entries.filter((e) => e.msg === 'request completed');
    expect(completed.length).toBeGreaterThanOrEqual(6);
    for (const e of completed) {
      expect(e.reqId).toEqual(expect.any(String));
      expect(e.responseTime).toEqual(expect.any(Number));
      expect(e.time).toEqual(expect.any(Number));
      expect(e.level).toEqual(expect.any(Number));
    }
    // Signed-in requests name their user.
    const photosLine = completed.find((e) => (e.res as { statusCode: number }).statusCode === 200 && e.userId);
    expect(photosLine?.userId).toBe(userId);
    const all = lines.join('\n');
    for (const secret of [
      password,
      'An0ther-pw!',
      'wrong-password-123',
      token,
      cookie2.split('=')[1]!,
      resetToken,
      'abc.def.ghi',
    ]) {
      expect(all.includes(secret), `log contains ${secret.slice(0, 6)}...`).toBe(false);
    }
    expect(all).not.toMatch(/eyevu_session=/);
    await recordFigure('9 observability', 'log lines checked / secrets found', `${lines.length} / 0`);
  });
});

describe('health and readiness', () => {
  it('/healthz answers while the process is up; /readyz checks the database', async () => {
    expect((await app.inject({ url: '/healthz' })).json()).toEqual({ status: 'ok' });
    const ready = await app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json().status).toBe('ready');
    const ping = app.ctx.database.ping;
    app.ctx.database.ping = () => Promise.reject(Object.assign(new Error('down'), { code: 'ECONNREFUSED' }));
    try {
      const down = await app.inject({ url: '/readyz' });
      expect(down.statusCode).toBe(503);
      expect(down.json().message).toEqual(expect.any(String));
      expect((await app.inject({ url: '/healthz' })).statusCode).toBe(200);
    } finally {
      app.ctx.database.ping = ping;
    }
  });
});

describe('OpenAPI at /api/docs', () => {
  it('describes every route in the route table, with schemas generated from the zod contract', async () => {
    const res = await app.inject({ url: '/api/docs' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toMatch(/^3\./);
    for (const r of app.routeTable) {
      const p = r.url.replace(/:(\w+)/g, '{$1}');
      expect(doc.paths[p]?.[r.method.toLowerCase()], `${r.method} ${r.url}`).toBeDefined();
    }
    const register = doc.paths['/api/auth/register'].post;
    expect(register.security).toEqual([]);
    const schema = register.requestBody.content['application/json'].schema;
    const fromContract = z.toJSONSchema(registerBody, { io: 'input', target: 'openapi-3.0' }) as { required: string[] };
    expect(schema.required.sort()).toEqual([...fromContract.required].sort());
    expect(Object.keys(schema.properties).sort()).toEqual(Object.keys(registerBody.shape).sort());
    expect(
      Object.keys(doc.paths['/api/auth/login'].post.requestBody.content['application/json'].schema.properties).sort(),
    ).toEqual(Object.keys(loginBody.shape).sort());
    const photo = doc.paths['/api/photos/{id}'].get;
    expect(photo.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'id', in: 'path', required: true })]),
    );
    expect(photo.responses['401']).toBeDefined();
  });
});
