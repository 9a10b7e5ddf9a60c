import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appWithOneUser } from '../hardening/support';
import type { TestApp } from '../test/harness';
import { BAD_URL_MESSAGE, LONG_PATH_MESSAGE, SEND_JSON_MESSAGE, SEND_PHOTOS_MESSAGE } from './errors';
import { API_CACHE_CONTROL } from './security-headers';

/**
 * The router refuses some paths before any hook runs: an escape that does not decode, and a path
 * parameter past its length limit. Those answers went out in Fastify's own format, repeating the
 * whole path as their message, without the security headers and the cache policy the hooks set.
 */
let t: TestApp;
let cookie: string;
beforeAll(async () => {
  ({ t, cookie } = await appWithOneUser());
});
afterAll(async () => {
  await t?.close();
});

describe("the router's own refusals", () => {
  it.each([
    ['an escape that does not decode', '/api/photos/%zz/info', 400, BAD_URL_MESSAGE, 'bad_url'],
    ['a lone %', '/api/photos/%', 400, BAD_URL_MESSAGE, 'bad_url'],
    ['an id past the length limit', `/api/photos/${'a'.repeat(3_000)}`, 414, LONG_PATH_MESSAGE, 'uri_too_long'],
    ['a variant past the length limit', `/api/photos/x/${'b'.repeat(500)}`, 414, LONG_PATH_MESSAGE, 'uri_too_long'],
  ])(
    '%s: the app error format, the security headers and the cache policy',
    async (_what, url, status, message, code) => {
      const res = await t.app.inject({ url, headers: { cookie } });
      expect(res.statusCode).toBe(status);
      expect(res.json()).toEqual({ message, code });
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['cache-control']).toBe(API_CACHE_CONTROL);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-security-policy']).toContain("default-src 'self'");
      expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    },
  );

  it('a page path with a bad escape gets the security headers but no API cache policy', async () => {
    const res = await t.app.inject({ url: '/gallery%zz' });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(BAD_URL_MESSAGE);
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['cache-control']).toBeUndefined();
  });
});

describe('an unknown API path', () => {
  it('is named in the 404, cut to 200 characters: a long one was repeated whole, up to tens of KB', async () => {
    const path = `/api/nothing/${'x'.repeat(20_000)}`;
    const res = await t.app.inject({ url: `${path}?q=1`, headers: { cookie } });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ message: `No route for GET ${path.slice(0, 200)}…`, code: 'not_found' });
    expect(res.headers['cache-control']).toBe(API_CACHE_CONTROL);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('a short one is named whole', async () => {
    const res = await t.app.inject({ url: '/api/nothing/here?q=1', headers: { cookie } });
    expect(res.json()).toEqual({ message: 'No route for GET /api/nothing/here', code: 'not_found' });
  });
});

describe('a body of a type the route does not read (415)', () => {
  it('a JSON route says to send JSON', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/albums',
      headers: { cookie, 'content-type': 'application/xml' },
      payload: '<album/>',
    });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({ message: SEND_JSON_MESSAGE, code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE' });
    expect(res.headers['cache-control']).toBe(API_CACHE_CONTROL);
  });

  it('the upload says to send photos as multipart/form-data', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/photos',
      headers: { cookie, 'content-type': 'image/jpeg' },
      payload: Buffer.from([0xff, 0xd8, 0xff]),
    });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({ message: SEND_PHOTOS_MESSAGE, code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE' });
  });
});
